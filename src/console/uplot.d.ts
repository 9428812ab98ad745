/* uPlot is served as its package's classic script (uplot.js, before the modules): its global, typed by the package. */
import type UPlot from 'uplot';

declare global {
  const uPlot: typeof UPlot;
}
