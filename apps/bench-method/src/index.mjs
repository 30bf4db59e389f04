// @agcore/bench-method: the A/B bench method (docs/benchmarks.md, "The method").
export {
  alternate,
  measurePass,
  minorCollect,
  pairOrder,
  realSources,
  sourcesOf,
  summarize,
} from './alternate.mjs';
export { conditions, markdownTable, ratioText, resultTable, verdict } from './format.mjs';
export { processCpuMs, processSources } from './process-cpu.mjs';
export { flagValue, importLibrary, libraryFile, libraryRoots, workingTree } from './roots.mjs';
export { binomialCdf, median, medianInterval, medianRanks, pairRatios } from './stats.mjs';
