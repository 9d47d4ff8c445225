/**
 * Is a series flat or growing? A least-squares line through the samples of a window, with the
 * scatter around it as the noise. Pure: used by the soak benchmark (`soak.ts`) on sizes sampled
 * every 30 s.
 */

/** One reading: minutes since the start, and its value (bytes, keys, ...). */
export interface Point {
  minutes: number;
  value: number;
}

export interface Line {
  /** Change per minute, in the value's unit. */
  slopePerMinute: number;
  intercept: number;
  /** Standard deviation of the residuals around the line (n − 2 degrees of freedom), in the value's unit. */
  residualSd: number;
}

export interface Trend {
  first: number;
  last: number;
  /** The window judged: the last `windowMinutes` of the series. */
  windowMinutes: number;
  samples: number;
  slopePerMinute: number;
  residualSd: number;
  /** The slope over the first half of the series, for comparison (filling up, not leaking, is steep there only). */
  firstHalfSlopePerMinute: number;
  /** slope × window: what the line gains across the window. */
  riseOverWindow: number;
  mean: number;
  verdict: 'flat' | 'growing';
}

/** How many residual standard deviations the line must rise across the window to count as growing. */
export const NOISE_FACTOR = 2;
/** ... and by at least this share of the window's mean, so a few bytes on a quiet series are not a leak. */
export const RELATIVE_FLOOR = 0.01;

/** The least-squares line through the points; slope 0 when there are fewer than two distinct times. */
export function fitLine(points: readonly Point[]): Line {
  const count = points.length;
  if (count === 0) return { slopePerMinute: 0, intercept: Number.NaN, residualSd: 0 };
  const meanX = points.reduce((sum, point) => sum + point.minutes, 0) / count;
  const meanY = points.reduce((sum, point) => sum + point.value, 0) / count;
  let sxx = 0;
  let sxy = 0;
  for (const point of points) {
    sxx += (point.minutes - meanX) ** 2;
    sxy += (point.minutes - meanX) * (point.value - meanY);
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = meanY - slope * meanX;
  const squares = points.reduce((sum, point) => sum + (point.value - (intercept + slope * point.minutes)) ** 2, 0);
  const residualSd = count > 2 ? Math.sqrt(squares / (count - 2)) : 0;
  return { slopePerMinute: slope, intercept, residualSd };
}

/**
 * Judges the last `windowMinutes` of a series: growing when the fitted line rises across the window by
 * more than NOISE_FACTOR residual standard deviations, by more than RELATIVE_FLOOR of the mean, and by
 * more than `minimumRise` (in the series' unit: what the run is too short to tell from nothing).
 */
export function judgeTrend(series: readonly Point[], windowMinutes: number, minimumRise = 0): Trend {
  const end = series.at(-1)?.minutes ?? 0;
  const window = series.filter((point) => point.minutes >= end - windowMinutes);
  const half = series.filter((point) => point.minutes <= end / 2);
  const line = fitLine(window);
  const mean = window.reduce((sum, point) => sum + point.value, 0) / Math.max(1, window.length);
  const rise = line.slopePerMinute * windowMinutes;
  const growing = rise > NOISE_FACTOR * line.residualSd && rise > RELATIVE_FLOOR * Math.abs(mean) && rise > minimumRise;
  return {
    first: series[0]?.value ?? Number.NaN,
    last: series.at(-1)?.value ?? Number.NaN,
    windowMinutes,
    samples: window.length,
    slopePerMinute: line.slopePerMinute,
    residualSd: line.residualSd,
    firstHalfSlopePerMinute: fitLine(half).slopePerMinute,
    riseOverWindow: rise,
    mean,
    verdict: growing ? 'growing' : 'flat',
  };
}
