import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's directory. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Where the tests' global setup bundles the package (as `pnpm build` does into dist/): inside
 * node_modules, so that its imports resolve as the package's own do, and git and biome skip it.
 */
export const testDist = join(packageRoot, 'node_modules', '.cache', 'agcore-tools-mcp-test');
