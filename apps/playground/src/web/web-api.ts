import { mkdtemp } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { DurableRuns } from '@agcore/durable-dbos';
import type { ResumeDecision, RunState } from '@agcore/llm-cycle';
import type { JsonValue, Permission } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import picocolors from 'picocolors';
import type { Flow } from '../core/flows.js';
import { describeModel, type ModelSettings } from '../core/model-settings.js';
import { describePolicy } from '../core/policy.js';
import { readRunFile } from '../core/run-file.js';
import { renderSpanTree } from '../core/span-tree.js';
import type { PlaygroundTracing } from '../core/tracing-setup.js';
import { ChatMessageRun, chatSaveRefusal } from './chat-message-run.js';
import type { EventHub } from './event-hub.js';
import { McpInspector } from './mcp-inspector.js';
import { BadRequest, readJsonBody, sendJson } from './responses.js';
import type { PageRun } from './run-records.js';
import { WebChat } from './web-chat.js';
import { explicitDenials, policyOfBody } from './web-policy.js';
import { WebRun } from './web-run.js';

/** What the API works with: the launch's settings, the event stream, the run in progress. */
export interface ApiContext {
  readonly hub: EventHub;
  /** The flows the page offers, the first selected unless `initialFlow` names one. */
  readonly flows: readonly Flow[];
  readonly initialFlow?: string;
  readonly model: ModelSettings;
  readonly policy: PermissionConfig;
  readonly deny: readonly Permission[];
  readonly mcpConfigPath?: string;
  /** Keeps the spans (`--trace`'s), so each run's tree is shown when it ends. */
  readonly tracing?: PlaygroundTracing;
  /** `--durable URL`: the page is the durable view of the runs there. */
  readonly durable?: DurableRuns;
}

/** The run the page drives (one at a time: a flow's or a chat message), per context. */
const current = new WeakMap<ApiContext, PageRun>();
/** The page's chat (its conversation and session), per context. */
const chats = new WeakMap<ApiContext, WebChat>();
/** The policy as edited on the page (for the rest of the launch), per context. */
const editedPolicy = new WeakMap<ApiContext, PermissionConfig>();
/** The MCP view's servers, per context (only with `--mcp-config`). */
const inspectors = new WeakMap<ApiContext, McpInspector>();

/** The policy in force: the launch's, or the one edited on the page. */
function policyOf(context: ApiContext): PermissionConfig {
  return editedPolicy.get(context) ?? context.policy;
}

function inspectorOf(context: ApiContext): McpInspector {
  if (context.mcpConfigPath === undefined) {
    throw new BadRequest(409, 'No MCP servers: start the page with --mcp-config FILE.');
  }
  let inspector = inspectors.get(context);
  if (inspector === undefined) {
    inspector = new McpInspector(context.mcpConfigPath, policyOf(context));
    inspectors.set(context, inspector);
  }
  return inspector;
}

/** Stops the MCP view's servers. Never rejects. */
export async function closeApi(context: ApiContext): Promise<void> {
  current.get(context)?.cancel();
  await Promise.all([inspectors.get(context)?.close(), chats.get(context)?.reset()]);
}

/** Answers one `/api/...` request. Never rejects: refusals are JSON errors with a status. */
export async function handleApi(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  context: ApiContext,
): Promise<void> {
  try {
    if (request.method === 'GET' && url.pathname === '/api/state') {
      sendJson(response, 200, stateOf(context));
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/mcp') {
      sendJson(response, 200, { servers: await inspectorOf(context).servers() });
      return;
    }
    if (request.method !== 'POST') throw new BadRequest(405, `${url.pathname} takes POST.`);
    const body = await readJsonBody(request);
    const answer = await post(url.pathname, body, context);
    sendJson(response, 200, answer);
  } catch (error) {
    if (error instanceof BadRequest) sendJson(response, error.status, { error: error.message });
    else sendJson(response, 400, { error: error instanceof Error ? error.message : String(error) });
  }
}

function stateOf(context: ApiContext): object {
  const run = current.get(context);
  return {
    flows: context.flows.map((flow) => ({ name: flow.name, summary: flow.summary })),
    selected: context.initialFlow ?? context.flows[0]?.name,
    model: describeModel(context.model),
    policy: describePolicy(policyOf(context)),
    policyConfig: policyOf(context),
    mcp: context.mcpConfigPath !== undefined,
    run: run === undefined ? null : { runId: run.id, status: run.status, waiting: run.waiting },
  };
}

async function post(route: string, body: Record<string, unknown>, context: ApiContext) {
  switch (route) {
    case '/api/run':
      return startRun(context, flowNamed(context, body.flow));
    case '/api/resume': {
      if (typeof body.path !== 'string' || body.path === '') {
        throw new BadRequest(400, 'Give the path of a paused run file.');
      }
      const saved = await readRunFile(body.path);
      const flow = flowNamed(context, saved.flow);
      return startRun(context, flow, { path: body.path, state: saved.state });
    }
    case '/api/decide': {
      const run = runNamed(context, body.runId);
      const refusal = run.decide(String(body.callId), decisionOf(body.decision));
      if (refusal !== undefined) throw new BadRequest(409, refusal);
      return { ok: true };
    }
    case '/api/save': {
      const run = runNamed(context, body.runId);
      if (run instanceof ChatMessageRun) throw new BadRequest(409, chatSaveRefusal);
      const folder = await mkdtemp(path.join(os.tmpdir(), 'agcore-paused-run-'));
      const file = path.join(folder, 'run.json');
      const refusal = await run.save(file);
      if (refusal !== undefined) throw new BadRequest(409, refusal);
      return { path: file };
    }
    case '/api/chat':
      return sendChat(context, chatMessageOf(body));
    case '/api/chat/new':
      return newConversation(context);
    case '/api/cancel':
      runNamed(context, body.runId).cancel();
      return { ok: true };
    case '/api/policy': {
      const policy = policyOfBody(body);
      editedPolicy.set(context, policy);
      inspectors.get(context)?.setPolicy(policy);
      context.hub.publish({ type: 'policy', policy: describePolicy(policy), policyConfig: policy });
      return { policy: describePolicy(policy), policyConfig: policy };
    }
    case '/api/mcp/call': {
      if (typeof body.tool !== 'string' || body.tool === '') {
        throw new BadRequest(400, 'Name the tool to call.');
      }
      return inspectorOf(context).call(body.tool, body.arguments ?? {});
    }
    default:
      throw new BadRequest(404, `No ${route} here.`);
  }
}

function flowNamed(context: ApiContext, name: unknown): Flow {
  const flow = context.flows.find((item) => item.name === name);
  if (flow === undefined) {
    throw new BadRequest(
      400,
      `Unknown flow '${String(name)}'. Flows: ${context.flows.map((item) => item.name).join(', ')}.`,
    );
  }
  return flow;
}

function runNamed(context: ApiContext, runId: unknown): PageRun {
  const run = current.get(context);
  if (run === undefined || run.id !== runId) {
    throw new BadRequest(409, 'That run is not the one in progress (reload the page).');
  }
  return run;
}

/** The page's `{ kind: 'approve' | 'deny' | 'answer' }` as the cycle's decision. */
function decisionOf(value: unknown): ResumeDecision {
  const decision = value as { kind?: unknown; reason?: unknown; text?: unknown } | null;
  if (decision?.kind === 'approve') return 'approve';
  if (decision?.kind === 'deny') {
    const reason = typeof decision.reason === 'string' ? decision.reason.trim() : '';
    return { deny: reason === '' ? 'Denied from the page.' : reason };
  }
  if (decision?.kind === 'answer' && typeof decision.text === 'string') {
    return { input: decision.text as JsonValue };
  }
  throw new BadRequest(400, "A decision is { kind: 'approve' | 'deny' | 'answer', ... }.");
}

function startRun(
  context: ApiContext,
  flow: Flow,
  resume?: { readonly path: string; readonly state: RunState },
): { runId: string } {
  refuseWhileRunning(context);
  const run = new WebRun({
    flow,
    model: context.model,
    policy: policyOf(context),
    deny: explicitDenials(context.policy, policyOf(context), context.deny),
    ...(context.mcpConfigPath === undefined ? {} : { mcpConfigPath: context.mcpConfigPath }),
    ...(resume === undefined ? {} : { resume }),
    publish: (record) => context.hub.publish(record),
  });
  current.set(context, run);
  const spansBefore = context.tracing?.spans().length ?? 0;
  void run.start().then(() => publishTrace(context, run.id, spansBefore));
  return { runId: run.id };
}

/** A run or a chat message in progress is never run over: the page sends one at a time. */
function refuseWhileRunning(context: ApiContext): void {
  const running = current.get(context);
  if (running !== undefined && running.status !== 'finished') {
    throw new BadRequest(409, 'A run is in progress: cancel it or let it end first.');
  }
}

/** The longest chat message the page takes, in characters. */
export const maxChatMessageChars = 16_000;

/** The `message` of a chat POST: a string with some text, at most `maxChatMessageChars`. */
function chatMessageOf(body: Record<string, unknown>): string {
  const message = body.message;
  if (typeof message !== 'string') {
    throw new BadRequest(400, 'A chat message is { message: string }.');
  }
  if (message.trim() === '') throw new BadRequest(400, 'The chat message is empty.');
  if (message.length > maxChatMessageChars) {
    throw new BadRequest(
      400,
      `The chat message is ${message.length} characters; the page takes at most ${maxChatMessageChars}.`,
    );
  }
  return message;
}

function chatOf(context: ApiContext): WebChat {
  let chat = chats.get(context);
  if (chat === undefined) {
    chat = new WebChat({
      model: context.model,
      ...(context.mcpConfigPath === undefined ? {} : { mcpConfigPath: context.mcpConfigPath }),
      publish: (record) => context.hub.publish(record),
    });
    chats.set(context, chat);
  }
  return chat;
}

/** Sends one chat message: the conversation goes on with it (409 while a run is in progress). */
function sendChat(context: ApiContext, message: string): { runId: string } {
  refuseWhileRunning(context);
  const run = new ChatMessageRun({
    chat: chatOf(context),
    message,
    model: context.model,
    policy: policyOf(context),
    publish: (record) => context.hub.publish(record),
  });
  current.set(context, run);
  const spansBefore = context.tracing?.spans().length ?? 0;
  void run.start().then(() => publishTrace(context, run.id, spansBefore));
  return { runId: run.id };
}

/** Forgets the chat's history (its servers stop; the next message starts them again). */
async function newConversation(context: ApiContext): Promise<{ ok: true }> {
  refuseWhileRunning(context);
  await chats.get(context)?.reset();
  context.hub.publish({ type: 'chat_reset' });
  return { ok: true };
}

/** The run's spans (the ones `--trace` prints) and their tree as the terminal draws it. */
function publishTrace(context: ApiContext, runId: string, spansBefore: number): void {
  if (context.tracing === undefined) return;
  const spans = context.tracing.spans().slice(spansBefore);
  const text = renderSpanTree(spans, picocolors.createColors(false), 120);
  context.hub.publish({ type: 'trace', runId, spans, text });
}
