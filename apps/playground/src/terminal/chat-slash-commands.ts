import { scriptedChatHelp } from '../core/chat-model.js';
import { explainError } from '../core/explain-error.js';
import { buildPolicy, describePolicy, parsePermissionList } from '../core/policy.js';
import type { ChatState } from './chat-state.js';
import { conversationOf, renderHistory } from './report.js';
import { listTools } from './tool-listing.js';

/** The chat's slash commands, in one line. */
export const commandHelp =
  '/tools list the tools · /history show the conversation · /permissions show the policy · /allow PERM · /deny PERM · /clear start over · /exit quit';

/** Runs one slash command; `false` for `/exit` (and `/quit`). Never throws. */
export function runSlashCommand(line: string, state: ChatState): boolean {
  const { say } = state.console;
  const c = state.terminal.colors;
  const [command = '', ...rest] = line.split(/\s+/);
  switch (command.toLowerCase()) {
    case '/exit':
    case '/quit':
      return false;
    case '/help':
      say(commandHelp);
      if (state.model.kind === 'scripted') say(scriptedChatHelp);
      return true;
    case '/tools':
      showTools(state);
      return true;
    case '/history':
      showHistory(state);
      return true;
    case '/permissions':
      showPermissions(state);
      return true;
    case '/allow':
    case '/deny':
      changePolicy(state, command, rest);
      return true;
    case '/clear':
      state.cycle = state.makeCycle();
      say(c.dim('(history cleared; a new conversation starts)'));
      return true;
    default:
      say(c.red(`Unknown command ${command}. ${commandHelp}`));
      return true;
  }
}

function showTools(state: ChatState): void {
  const c = state.terminal.colors;
  for (const tool of listTools(state.session)) {
    state.console.say(
      `  ${tool.allowed ? c.green('●') : c.red('○')} ${c.bold(tool.name)} ${c.dim(`[${tool.source}] ${tool.permissions.join(', ') || 'no permissions'}`)} ${tool.parameters}`,
    );
  }
}

function showHistory(state: ChatState): void {
  const c = state.terminal.colors;
  const history = conversationOf(state.cycle.messages());
  if (history.length === 0) state.console.say(c.dim('(no messages yet)'));
  else state.console.say(renderHistory(history, c, Math.max(40, state.terminal.columns - 16)));
}

function showPermissions(state: ChatState): void {
  const { say } = state.console;
  say(`policy: ${describePolicy(state.session.checker.config)}`);
  const tools = listTools(state.session);
  const refused = tools.filter((tool) => !tool.allowed).map((tool) => tool.name);
  say(
    `  allowed: ${tools.length - refused.length} tools · refused: ${refused.length === 0 ? 'none' : refused.join(', ')}`,
  );
}

/** `/allow PERM` and `/deny PERM`: extends the lists and applies the policy they make. */
function changePolicy(state: ChatState, command: string, rest: readonly string[]): void {
  const { say } = state.console;
  const { allow, deny } = state;
  const c = state.terminal.colors;
  try {
    const list = parsePermissionList(rest, command);
    if (list.length === 0) {
      say(c.red(`usage: ${command} PERMISSION (read, write, delete, network, shell, filesystem)`));
      return;
    }
    if (command === '/allow') {
      allow.push(...list);
      for (const permission of list)
        deny.splice(0, deny.length, ...deny.filter((item) => item !== permission));
    } else {
      deny.push(...list);
    }
    state.session.setPolicy(
      buildPolicy(parsePermissionList(allow, '--allow'), parsePermissionList(deny, '--deny')),
    );
    say(`policy: ${describePolicy(state.session.checker.config)}`);
  } catch (error) {
    say(c.red(explainError(error).message));
  }
}
