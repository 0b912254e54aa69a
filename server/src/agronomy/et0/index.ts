/**
 * Reference evapotranspiration (ET0): FAO-56 (Allen et al. 1998) Penman-Monteith
 * daily and hourly, ASCE-EWRI (2005) standardized, Hargreaves-Samani, and the
 * method selection with its decision trace. Pure: inputs in, numbers out.
 */
export * from './constants';
export * from './atmosphere';
export * from './humidity';
export * from './radiation';
export * from './wind';
export * from './types';
export * from './resolve';
export * from './penman-monteith';
export * from './asce';
export * from './hargreaves';
export * from './select';
