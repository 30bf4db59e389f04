// The durable view's API (`web --durable URL`): runs by state, one run's timeline from its
// events and the calls it waits on, and decisions sent from the page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DurableRunSummary, DurableRuns } from '@agcore/durable-dbos';
import type { ResumeDecision, StreamEvent } from '@agcore/llm-cycle';
import { BadRequest, readJsonBody, sendJson } from './responses.js';

/** The most runs the page lists (newest first). */
const pageRuns = 200;

/** Answers `/api/durable/*`; every failure is a JSON `{ error }` (never throws). */
export async function handleDurableApi(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  runs: DurableRuns,
): Promise<void> {
  try {
    if (request.method === 'GET' && url.pathname === '/api/durable/runs') {
      const page = await runs.list({ limit: pageRuns });
      sendJson(response, 200, {
        runs: page.runs.map(summaryJson),
        more: page.cursor !== undefined,
      });
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/durable/run') {
      sendJson(response, 200, await runDetail(runs, url.searchParams.get('id') ?? ''));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/api/durable/decide') {
      const body = await readJsonBody(request);
      const { runId, decisions } = body;
      if (typeof runId !== 'string' || typeof decisions !== 'object' || decisions === null)
        throw new BadRequest(400, 'Send { runId, decisions }.');
      await runs.decide(runId, decisions as Record<string, ResumeDecision>);
      sendJson(response, 200, { ok: true });
      return;
    }
    throw new BadRequest(404, `No ${request.method ?? ''} ${url.pathname} here.`);
  } catch (error) {
    if (error instanceof BadRequest) sendJson(response, error.status, { error: error.message });
    else sendJson(response, 400, { error: error instanceof Error ? error.message : String(error) });
  }
}

async function runDetail(runs: DurableRuns, runId: string): Promise<object> {
  const run = await runs.get(runId);
  if (run === undefined) throw new BadRequest(404, `No run ${JSON.stringify(runId)}.`);
  const events: object[] = [];
  for await (const event of runs.events(runId, { follow: false })) events.push(eventJson(event));
  const waiting = run.state === 'waiting_approval' ? await runs.interruptions(runId) : [];
  return { run: summaryJson(run), events, waiting };
}

function summaryJson(run: DurableRunSummary): object {
  return { ...run, createdAt: run.createdAt.toISOString(), updatedAt: run.updatedAt.toISOString() };
}

/** The page's form of an event: deltas are joined by the page; errors as their message. */
function eventJson(event: StreamEvent): object {
  if (event.type === 'tool_execution_completed' && event.error !== undefined)
    return { ...event, error: event.error.message };
  return event;
}
