/** Skip rules and today's skip check (pure). See skip-check.ts for the verdict precedence. */
export * from './evidence';
export * from './local-days';
export * from './rain-evidence';
export * from './weather-evidence';
export * from './rules';
export * from './skip-check';
