/**
 * Display units (config `deployment.units`; display only, the API keeps its
 * units of spec 1.6), pure: no Preact, so page models and their tests can use
 * it. Every formatter shows null as "unknown", never as 0.
 *
 * The definitions are the server's (server/src/core/units/): one unit,
 * conversion and precision per quantity, so the app's figures and the
 * service's reason sentences agree. `localizeUnits` converts a sentence the
 * service wrote in the other unit system (stored before a units change).
 */

export {
  UNKNOWN,
  displayValue,
  formatQuantity,
  sentenceQuantity,
  unitLabel,
  type Quantity,
  type UnitSystem,
} from '../../../server/src/core/units/quantities';
export { localizeUnits } from '../../../server/src/core/units/localize';
