// The conversation of the A/B suites (the one of packages/llm-cycle's bench): 4 tool turns, one
// with 2 parallel calls, then a final answer of 100 deltas; the same on every wire format.

/** The 100 deltas of the final answer. */
export const finalPieces = Array.from({ length: 100 }, (_, index) => `word${index} `);

/** The tool calls of the 4 tool turns. */
export const turns = [
  [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
  [
    { name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { name: 'get_time', arguments: '{"zone":"CET"}' },
  ],
  [{ name: 'get_time', arguments: '{"zone":"UTC"}' }],
  [{ name: 'get_weather', arguments: '{"city":"Rome"}' }],
];

/** The model requests of one conversation. */
export const requestsPerConversation = turns.length + 1;

export const SYSTEM = 'You are a helpful assistant.';
export const PROMPT = 'Plan my trip.';

/** The tools as plain functions, for the bare loops. */
export const toolFunctions = {
  get_weather: ({ city }) => ({ city, temperature: 22, unit: 'C' }),
  get_time: ({ zone }) => ({ zone, time: '12:00' }),
};

/** The tools' JSON Schemas. */
export const toolSchemas = {
  get_weather: {
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  get_time: {
    description: 'Current time in a time zone',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
};

/** The argument pieces a streamed call is sent in. */
export function argumentPieces(text) {
  return [text.slice(0, 5), text.slice(5, 11), text.slice(11)];
}
