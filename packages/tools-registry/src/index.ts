export type { ToolEntry, ToolMeta, ToolStats } from './tool-entry.js';
export type { ToolInvocation, ToolOutput } from './tool-invocation.js';
export type {
  InvokeAllOptions,
  InvokeOptions,
  ToolCallRequest,
  ToolRegistryOptions,
} from './tool-registry.js';
export { ToolRegistry } from './tool-registry.js';
