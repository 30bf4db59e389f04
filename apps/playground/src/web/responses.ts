import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest request body the page sends (a decision, a flow's name, a file path). */
const maxBodyBytes = 64 * 1024;

/** Answers with a JSON body. Never throws. */
export function sendJson(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(JSON.stringify(body));
}

/** A request the API refuses, with the status to answer. */
export class BadRequest extends Error {
  /** The HTTP status (400, 409, 413, 415). */
  readonly status: number;

  /** Makes the refusal. */
  constructor(status: number, message: string) {
    super(message);
    this.name = 'BadRequest';
    this.status = status;
  }
}

/**
 * The JSON object of a POST body.
 * @throws {BadRequest} 415 unless `application/json`, 413 past 64 KB, 400 for anything but a
 * JSON object
 */
export async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new BadRequest(415, 'Send the request body as application/json.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) throw new BadRequest(413, 'The request body is over 64 KB.');
    chunks.push(buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest(400, 'The request body is not JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequest(400, 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
