import { ApiFailure } from '../lib/api';

/** An API failure as the user should see it: the server's message, its code and the request id to quote in a bug report. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="notice notice-error" role="alert">
      {title && <strong>{title}: </strong>}
      <span class="notice-message">{message}</span>
      {failure && (failure.code || failure.requestId) && (
        <small class="notice-meta">
          {failure.code && <code>{failure.code}</code>}
          {failure.requestId && (
            <>
              {' '}
              request id <code class="request-id">{failure.requestId}</code>
            </>
          )}
        </small>
      )}
    </div>
  );
}
