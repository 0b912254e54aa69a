import { DomainError } from '../../core/domain-error';

/** A tuning refusal (spec 4.4, 4.5, 7). Domain code throws it; the route maps it to the standard error body. */
export class TuningError extends DomainError {}
