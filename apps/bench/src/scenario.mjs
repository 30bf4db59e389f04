// The work every framework does: the same tools, the same scripted model, the same answers.
// Models (the `model` field of a request) select a script on the local server:
//   loop  - 5 model turns: 1 call, 1 call, 2 parallel calls, 1 call, then a 100-delta answer
//   long  - a single text reply of LONG_DELTAS deltas (streaming throughput, first delta)
//   scale - SCALE_TURNS turns calling one of SCALE_TOOLS tools each, then a short answer

/** The three tools of the tool loop, as JSON Schema (every framework gets the same schema). */
export const loopToolSchemas = {
  get_weather: {
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  lookup_order: {
    description: 'Status of an order by its id',
    parameters: {
      type: 'object',
      properties: { orderId: { type: 'string' } },
      required: ['orderId'],
      additionalProperties: false,
    },
  },
  add: {
    description: 'Adds two numbers',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
};

/** The tools' implementations: plain synchronous work, so the figure is the framework's. */
export const loopToolImplementations = {
  get_weather: ({ city }) => ({ city, temperatureC: city.length * 3, conditions: 'sunny' }),
  lookup_order: ({ orderId }) => ({ orderId, status: 'shipped', items: 3 }),
  add: ({ a, b }) => ({ sum: a + b }),
};

/** The tool calls of each tool turn of the `loop` script. */
export const loopToolTurns = [
  [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  [{ name: 'lookup_order', arguments: { orderId: 'A-1001' } }],
  [
    { name: 'get_weather', arguments: { city: 'Tokyo' } },
    { name: 'add', arguments: { a: 2, b: 3 } },
  ],
  [{ name: 'add', arguments: { a: 5, b: 21.5 } }],
];

/** Model turns in one `loop` conversation (tool turns plus the final answer). */
export const LOOP_TURNS = loopToolTurns.length + 1;
/** Text deltas in the final answer of the `loop` script. */
export const LOOP_ANSWER_DELTAS = 100;
/** Text deltas of the `long` reply. */
export const LONG_DELTAS = 2000;
/** Tools registered in the `scale` script. */
export const SCALE_TOOLS = 200;
/** Tool turns of the `scale` script before its answer. */
export const SCALE_TURNS = 1000;

const words = [
  'The',
  'weather',
  'in',
  'Paris',
  'is',
  'sunny',
  'and',
  'order',
  'A-1001',
  'shipped;',
];

/** The text deltas of an answer of `count` deltas. */
export function answerDeltas(count) {
  const deltas = new Array(count);
  for (let index = 0; index < count; index++) deltas[index] = `${words[index % words.length]} `;
  return deltas;
}

/** The full answer text each framework must return for the `loop` script. */
export const loopAnswer = answerDeltas(LOOP_ANSWER_DELTAS).join('');
/** The full text of the `long` reply. */
export const longAnswer = answerDeltas(LONG_DELTAS).join('');
/** The answer of the `scale` script. */
export const scaleAnswer = answerDeltas(10).join('');

/** The user prompt every framework sends. */
export const PROMPT =
  'Check the weather in Paris and Tokyo, my order A-1001, and add a few numbers.';
/** The system prompt every framework sends. */
export const SYSTEM_PROMPT = 'You are a helpful assistant. Use the tools.';

/** Name of the i-th tool of the scale script. */
export function scaleToolName(index) {
  return `tool_${String(index).padStart(3, '0')}`;
}

/** The 200 tool schemas of the scale script. */
export const scaleToolSchemas = Object.fromEntries(
  Array.from({ length: SCALE_TOOLS }, (_, index) => [
    scaleToolName(index),
    {
      description: `Scale tool number ${index}: returns its input doubled`,
      parameters: {
        type: 'object',
        properties: { n: { type: 'number', description: 'Any number' } },
        required: ['n'],
        additionalProperties: false,
      },
    },
  ]),
);

/** The scale tools' implementation (all the same). */
export const scaleToolImplementation = ({ n }) => ({ doubled: n * 2 });

/** The call of scale turn `turn` (0-based). */
export function scaleCall(turn) {
  return { name: scaleToolName(turn % SCALE_TOOLS), arguments: { n: turn } };
}
