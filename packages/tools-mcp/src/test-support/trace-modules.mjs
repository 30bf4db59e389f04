// `node --import ./trace-modules.mjs ...`: registers module-hooks.mjs, which logs every module
// the process loads to TRACE_FILE and makes the bare specifiers in HIDE_MODULES (comma-separated)
// fail as a package that is not installed does.
import { register } from 'node:module';

register('./module-hooks.mjs', import.meta.url);
