export type { RecordedCall, ScriptedToolCall, ScriptStep } from './scripted-provider.js';
export { ScriptedProvider, textResponse, toolCallsResponse } from './scripted-provider.js';
