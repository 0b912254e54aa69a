import { BIAS_MIN_SAMPLES, untrainedBias } from '../../server/src/forecast/bias';

/** A month with nothing learnt: what forecastBias answers without archive rows or gauge days. */
it('is neutral and untrained, for the month asked', () => {
  expect(untrainedBias(6)).toEqual({
    month: 6,
    multiplier: 1,
    sample_count: 0,
    min_samples: BIAS_MIN_SAMPLES,
    trained: false,
    observed_in: null,
    forecast_in: null,
    observed_source: 'none',
  });
});
