import { LlmCycle } from '@agcore/llm-cycle';
import { createRedactor } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import { auditLine, auditSecrets } from '../core/audit-log.js';
import { allBundledServers } from '../core/bundled-servers.js';
import { ScriptedChatProvider } from '../core/chat-model.js';
import { createProvider, systemPrompt } from '../core/cycle-setup.js';
import { readMcpConfig } from '../core/mcp-config.js';
import type { ModelSettings } from '../core/model-settings.js';
import { PacedProvider } from '../core/scripted-model.js';
import { PlaygroundSession } from '../core/session.js';
import { recordModelExchanges } from './model-exchanges.js';

/** What the page's chat is made with: the launch's model and servers, where records go. */
export interface WebChatOptions {
  readonly model: ModelSettings;
  readonly mcpConfigPath?: string;
  /** Receives the records of the chat's messages (the page's event stream). */
  readonly publish: (record: object) => void;
}

/** The conversation a message goes into: the session, the cycle and which message it is. */
export interface ChatConversation {
  readonly session: PlaygroundSession;
  readonly cycle: LlmCycle;
  /** 1 for the page's first conversation, +1 for each "new conversation". */
  readonly number: number;
  /** 1 for the conversation's first message. */
  readonly message: number;
}

interface Open {
  readonly session: PlaygroundSession;
  readonly cycle: LlmCycle;
  readonly number: number;
  messages: number;
  /** The model turns of the conversation so far (the page numbers them per message). */
  turns: number;
  /** The message's run id: model records and audit lines go to its view. */
  runId: string;
  /** The model turn the message started after. */
  turnsBefore: number;
}

/**
 * The page's free chat, like the terminal's `chat`: one session with every tool (built-in,
 * the bundled MCP servers, `--mcp-config`) and one cycle whose history every message
 * continues, on the scripted chat model (paced, so the text streams) or the real one. The
 * session starts with the first message; `reset()` starts a new conversation.
 */
export class WebChat {
  readonly #options: WebChatOptions;
  #open: Promise<Open> | undefined;
  #number = 0;

  /** Makes the chat; nothing starts until the first message. */
  constructor(options: WebChatOptions) {
    this.#options = options;
  }

  /**
   * The conversation for the next message (opened on the first), with `policy` in force and
   * its records addressed to `runId`.
   * @throws {PlaygroundError} when a server does not start or mcp.json is malformed (the next
   * message tries again)
   */
  async next(runId: string, policy: PermissionConfig): Promise<ChatConversation> {
    if (this.#open === undefined) {
      this.#number += 1;
      this.#open = this.#start(this.#number, policy);
      this.#open.catch(() => {
        this.#open = undefined;
      });
    }
    const open = await this.#open;
    open.session.setPolicy(policy);
    open.messages += 1;
    open.runId = runId;
    open.turnsBefore = open.turns;
    return { ...open, message: open.messages };
  }

  /** Forgets the conversation and stops its servers (the next message opens a new one). */
  async reset(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    await open?.then((item) => item.session.close()).catch(() => undefined);
  }

  async #start(number: number, policy: PermissionConfig): Promise<Open> {
    const { model, mcpConfigPath, publish } = this.#options;
    const mcpConfig = mcpConfigPath === undefined ? undefined : await readMcpConfig(mcpConfigPath);
    const redact = createRedactor(
      auditSecrets({
        ...(model.kind === 'remote' && model.apiKey !== undefined ? { apiKey: model.apiKey } : {}),
        ...(mcpConfig === undefined ? {} : { mcpServers: mcpConfig.servers }),
        redactEnv: [],
        environment: process.env,
      }),
    );
    let open: Open | undefined;
    const session = await PlaygroundSession.open({
      servers: allBundledServers,
      policy,
      ...(mcpConfig === undefined ? {} : { mcpConfig }),
      onInvocation: (invocation, entry) =>
        publish({ type: 'audit', runId: open?.runId, line: auditLine(invocation, entry, redact) }),
    });
    const provider = recordModelExchanges(chatProvider(model, session), redact, (record) => {
      if (open === undefined) return;
      open.turns = record.turn;
      publish({
        type: 'model',
        runId: open.runId,
        ...record,
        turn: record.turn - open.turnsBefore,
      });
    });
    const cycle = new LlmCycle({
      provider,
      model: model.kind === 'remote' ? model.model : 'scripted',
      systemPrompt,
    });
    open = { session, cycle, number, messages: 0, turns: 0, runId: '', turnsBefore: 0 };
    return open;
  }
}

/** The model of the chat: the terminal chat's scripted one (paced), or the real one. */
function chatProvider(model: ModelSettings, session: PlaygroundSession) {
  if (model.kind !== 'scripted') return createProvider(model, [], false).provider;
  return new PacedProvider(new ScriptedChatProvider(session.sandbox.dir), {
    delayMs: 25,
    estimateUsage: true,
  });
}
