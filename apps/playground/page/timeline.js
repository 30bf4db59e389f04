// Renders the run records of the event stream into the timeline. Text goes in with
// textContent only: tool output and model text are never parsed as HTML.

/** The characters of a value shown on a card before the "full value" control. */
const previewChars = 240;

/** Makes an element with a class and text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A duration as the terminal prints it: 0.4 ms, 28 ms, 2.0 s. */
export function formatDuration(ms) {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function json(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One run's part of the timeline: its turns, and a card per tool call. */
export class RunView {
  constructor(container, record) {
    this.root = element('section', 'run');
    this.root.dataset.runId = record.runId;
    const heading = element(
      'h3',
      null,
      !record.chat
        ? `flow ${record.flow}`
        : record.chat.conversation === 0
          ? 'chat · the conversation could not start'
          : `chat · conversation ${record.chat.conversation} · message ${record.chat.message}`,
    );
    this.root.append(heading);
    if (record.resumedFrom) {
      this.root.append(element('p', 'meta', `resumed from ${record.resumedFrom}`));
    }
    if (record.prompt) {
      const prompt = element('p', 'prompt');
      prompt.append(element('strong', null, 'you › '), document.createTextNode(record.prompt));
      this.root.append(prompt);
    }
    this.turnNumber = 0;
    this.turn = undefined;
    this.text = undefined;
    this.cards = new Map();
    container.append(this.root);
  }

  #openTurn() {
    if (this.turn) return this.turn;
    this.turnNumber += 1;
    const turn = element('article', 'turn');
    turn.dataset.turn = String(this.turnNumber);
    turn.append(element('h4', null, `turn ${this.turnNumber}`));
    turn.cards = element('div', 'cards');
    turn.append(turn.cards);
    this.root.append(turn);
    this.turn = turn;
    return turn;
  }

  #stream(kind, text) {
    const turn = this.#openTurn();
    if (!this.text || this.text.kind !== kind) {
      const block = element('p', kind === 'reasoning' ? 'reasoning' : 'assistant');
      block.append(element('strong', null, kind === 'reasoning' ? 'thinking › ' : 'assistant › '));
      block.body = element('span', 'streamed');
      block.append(block.body);
      block.kind = kind;
      turn.insertBefore(block, turn.cards);
      this.text = block;
    }
    this.text.body.textContent += text;
  }

  /** Applies one stream event of the cycle. */
  event(event) {
    switch (event.type) {
      case 'assistant_text_delta':
        return this.#stream('text', event.text);
      case 'assistant_reasoning_delta':
        return this.#stream('reasoning', event.text);
      case 'tool_call_delta':
        this.#openTurn();
        return;
      case 'tool_execution_started':
        return this.#card(event).setState('running');
      case 'tool_approval_requested':
        return this.#card(event).setState('waiting', 'waits for approval');
      case 'tool_input_requested':
        return this.#card(event).setState('waiting', `asks: ${event.prompt}`);
      case 'tool_execution_progress':
        return this.#card(event).progress(event.progress);
      case 'tool_execution_completed':
        return this.#card(event).complete(event);
      case 'turn_complete':
        return this.#turnComplete(event);
    }
  }

  /** Shows a model request or its answer (redacted JSON) in the turn it belongs to. */
  model(record) {
    const turn = this.#openTurn();
    if (!turn.exchange) {
      turn.exchange = element('div', 'exchange');
      turn.insertBefore(turn.exchange, turn.firstChild.nextSibling);
    }
    const names = {
      request: 'model request',
      response: 'model response',
      failure: 'model failure',
    };
    const details = element('details', `model-${record.kind}`);
    details.dataset.modelTurn = String(record.turn);
    details.append(
      element(
        'summary',
        null,
        `${names[record.kind]} (turn ${record.turn}, ${record.body.length} characters)`,
      ),
      Object.assign(element('pre', 'model-body', record.body), { tabIndex: 0 }),
    );
    turn.exchange.append(details);
  }

  #turnComplete(event) {
    this.text = undefined;
    if (event.reason === 'interrupted' || event.reason === 'stopped') {
      this.root.append(
        element(
          'p',
          'meta',
          event.reason === 'interrupted'
            ? '⏸ the run paused: it waits for a decision'
            : '■ a stop condition ended the run',
        ),
      );
      // The calls that resume belong to this turn; a new turn opens with the next model text.
      return;
    }
    const turn = this.#openTurn();
    const usage = event.usage
      ? ` · ${event.usage.promptTokens} prompt + ${event.usage.completionTokens} completion tokens`
      : '';
    turn.append(
      element('p', 'turn-end', `⏎ turn ${this.turnNumber} complete: ${event.reason}${usage}`),
    );
    this.turn = undefined;
  }

  #card(event) {
    let card = this.cards.get(event.callId);
    if (!card) {
      const turn = this.turn ?? this.#openTurn();
      card = new ToolCard(turn.cards, event);
      this.cards.set(event.callId, card);
    }
    return card;
  }
}

/** One tool call: started → progress → completed or failed. */
class ToolCard {
  constructor(container, event) {
    this.root = element('div', 'card');
    this.root.dataset.callId = event.callId;
    this.root.dataset.tool = event.toolName;
    this.root.setAttribute('role', 'group');
    this.root.setAttribute('aria-label', `${event.toolName} call ${event.callId}`);
    const head = element('div', 'card-head');
    head.append(
      element('strong', 'tool-name', event.toolName),
      element('span', 'call-id', event.callId),
    );
    this.state = element('span', 'state');
    head.append(this.state);
    this.root.append(head);
    this.root.append(valueBlock('arguments', json(event.input), false));
    this.bar = element('progress', 'call-progress');
    this.bar.setAttribute('aria-label', `progress of ${event.toolName} ${event.callId}`);
    this.bar.hidden = true;
    this.barText = element('span', 'bar-text');
    this.root.append(this.bar, this.barText);
    container.append(this.root);
  }

  setState(state, label = state) {
    this.root.dataset.state = state;
    this.state.textContent = label;
  }

  progress(progress) {
    this.bar.hidden = false;
    if (progress.total !== undefined) {
      this.bar.max = progress.total;
      this.bar.value = progress.progress;
      const percent = Math.round((progress.progress / progress.total) * 100);
      this.barText.textContent = `${progress.progress}/${progress.total} (${percent}%)${progress.message ? ` ${progress.message}` : ''}`;
    } else {
      this.bar.removeAttribute('value');
      this.barText.textContent = `${progress.progress}${progress.message ? ` ${progress.message}` : ''}`;
    }
  }

  complete(event) {
    const duration = formatDuration(event.durationMs);
    this.root.dataset.duration = String(event.durationMs);
    if (event.error) {
      this.root.dataset.code = event.error.code;
      this.setState('failed', `failed · ${event.error.code} · ${duration}`);
      this.root.append(valueBlock('error', `${event.error.code}: ${event.error.message}`, false));
    } else {
      this.setState('completed', `completed · ${duration}`);
      this.root.append(valueBlock('result', json(event.output), event.truncated));
    }
  }
}

/** A value, cut to `previewChars` with the whole of it one click away. */
function valueBlock(label, text, truncated) {
  const block = element('div', `value ${label}`);
  block.append(element('span', 'value-label', `${label} `));
  const cut = text.length > previewChars;
  block.append(element('code', 'preview', cut ? `${text.slice(0, previewChars)}…` : text));
  if (truncated) {
    block.append(
      element(
        'span',
        'marker',
        ' [cut to maxToolResultBytes for the model; the event has it whole]',
      ),
    );
  }
  if (cut || truncated) {
    const details = element('details', 'full');
    details.append(element('summary', null, `full ${label} (${text.length} characters)`));
    details.append(element('pre', 'full-value', text));
    block.append(details);
  }
  return block;
}
