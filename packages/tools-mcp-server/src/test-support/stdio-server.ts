// A child-process MCP server: the fixture registry served over stdio (run with tsx).
import { serveToolsStdio } from '../stdio.js';
import { fixtureRegistry } from './fixtures.js';

await serveToolsStdio(fixtureRegistry().registry);
