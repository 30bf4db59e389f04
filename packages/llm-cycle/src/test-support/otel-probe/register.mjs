import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, {
  data: { log: process.env.OTEL_PROBE_LOG, deny: process.env.OTEL_PROBE_DENY ?? 'none' },
});
