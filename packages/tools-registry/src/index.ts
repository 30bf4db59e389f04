export type {
  InvokeAllOptions,
  InvokeOptions,
  ToolCallRequest,
  ToolRegistryOptions,
  ToolTracingOptions,
} from './options.js';
export type { ToolEntry, ToolMeta, ToolStats } from './tool-entry.js';
export type { ToolInvocation, ToolOutput } from './tool-invocation.js';
export { ToolRegistry } from './tool-registry.js';
