import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, cliPath, runCli } from './support/cli.js';

// Issue 12, section 5: the approve, ask-back, resume and loop flows, and approvals in chat.

const dir = mkdtempSync(path.join(tmpdir(), 'agcore-approval-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('--flow approve', () => {
  it('--approve yes: the safe call runs, the run pauses, both deletions run after approval', async () => {
    const result = await runCli(['--flow', 'approve', '--approve', 'yes']);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain('policy: allow read, network, delete · deny shell');
    const weather = out.search(/✓ get_weather \d+ ms/);
    const waits = out.indexOf('⏸ delete_file {"path":"access.log"} call_002 waits for approval');
    const approved = out.indexOf('✔ approved delete_file call_002');
    const deleted = out.search(/✓ delete_file \d+ ms \{"deleted":"access\.log"\}/);
    expect(weather).toBeGreaterThan(0);
    expect(waits).toBeGreaterThan(weather);
    expect(approved).toBeGreaterThan(waits);
    expect(deleted).toBeGreaterThan(approved);
    expect(out).toMatch(/✓ delete_file \d+ ms \{"deleted":"cities\.csv"\}/);
    expect(out).toContain('⏎ turn 2 complete: stop');
    expect(out).toContain('✔ done');
    expect(out).toMatch(/│ tool calls\s+│\s+3 │/);
  });

  it('--approve no: both deletions are denied, the model reads why, the run ends normally', async () => {
    const result = await runCli(['--flow', 'approve', '--approve', 'no', '--history']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✗ denied delete_file call_002: Denied with --approve no.');
    expect(result.stdout).toMatch(/✗ delete_file \d+ ms denied: Denied with --approve no\./);
    expect(result.stdout).toMatch(
      / \d tool +call_003 Error \[denied\]: Denied with --approve no\./,
    );
    expect(result.stdout).toMatch(/│ failures\s+│\s+2 │/);
  });

  it('piped without --approve: exit 2 saying which flag to pass; the run is abandoned, history whole', async () => {
    const result = await runCli(['--flow', 'approve']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'A tool call waits for approval, and nobody can be asked (stdin is not a terminal, or --json): pass --approve yes|no.',
    );
    expect(result.stdout).toMatch(/ 4 tool +call_002 Error \[cancelled\]: No decision was given/);
    expect(result.stdout).toMatch(/ 5 tool +call_003 Error \[cancelled\]/);
  });

  it('--json: the requests are events, the decisions come from the flag and are events too', async () => {
    const result = await runCli(['--flow', 'approve', '--json', '--approve', 'yes']);
    expect(result.code).toBe(0);
    const records = jsonLines(result.stdout).filter(
      (record) => !String(record.type).endsWith('_delta'),
    );
    const types = records.map((record) =>
      record.type === 'turn_complete' ? `turn_complete:${String(record.reason)}` : record.type,
    );
    expect(types.slice(0, 9)).toEqual([
      'run_started',
      'tool_execution_started',
      'turn_complete:tool_calls',
      'tool_execution_completed',
      'tool_approval_requested',
      'tool_approval_requested',
      'turn_complete:interrupted',
      'decision',
      'decision',
    ]);
    expect(records[4]).toEqual({
      type: 'tool_approval_requested',
      toolName: 'delete_file',
      callId: 'call_002',
      input: { path: 'access.log' },
    });
    expect(records[7]).toEqual({
      type: 'decision',
      callId: 'call_002',
      toolName: 'delete_file',
      kind: 'approval',
      decision: 'approve',
    });
    const finished = records.at(-1);
    expect(finished).toMatchObject({ type: 'run_finished', outcome: 'complete', exitCode: 0 });
    expect(finished?.summary).toMatchObject({ turns: 2 });
  });

  it('--deny delete wins over the flow: the calls are refused by the policy, nobody is asked', async () => {
    const result = await runCli(['--flow', 'approve', '--deny', 'delete', '--approve', 'yes']);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('waits for approval');
    expect(result.stdout).toMatch(/✗ delete_file \d+ ms permission_denied/);
  });
});

describe('--flow ask-back', () => {
  it('--answer yes freezes the account; the tool is called again with the answer', async () => {
    const result = await runCli(['--flow', 'ask-back', '--answer', 'yes']);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(
      '? transfer_money call_001 asks: A suspicious transfer of 9 000 € to ACME Ltd: freeze the account? (yes/no)',
    );
    expect(out).toContain('↩ answered transfer_money call_001: "yes"');
    expect(out).toMatch(/✓ transfer_money \d+ ms \{"frozen":true/);
    expect(out.match(/→ transfer_money/g)).toHaveLength(2);
  });

  it('--json with --answer no: tool_input_requested, the decision, then the transfer', async () => {
    const result = await runCli(['--flow', 'ask-back', '--json', '--answer', 'no']);
    expect(result.code).toBe(0);
    const records = jsonLines(result.stdout);
    expect(records).toContainEqual({
      type: 'tool_input_requested',
      toolName: 'transfer_money',
      callId: 'call_001',
      prompt: 'A suspicious transfer of 9 000 € to ACME Ltd: freeze the account? (yes/no)',
    });
    expect(records).toContainEqual(
      expect.objectContaining({ type: 'decision', decision: { input: 'no' } }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        type: 'tool_execution_completed',
        output: { sent: true, to: 'ACME Ltd', amount: 9000 },
      }),
    );
  });

  it('piped without --answer: exit 2 naming the flag', async () => {
    const result = await runCli(['--flow', 'ask-back']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --answer TEXT');
  });
});

describe('--flow resume, then resume FILE in a second process', () => {
  it('the first process pauses and writes the state; the second resumes it', async () => {
    const file = path.join(dir, 'run.json');
    const first = await runCli(['--flow', 'resume', '--state-file', file]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `⏸ paused: the run waits for a decision; its state is in ${file}.`,
    );
    expect(first.stdout).toContain(`pnpm playground resume ${file} --approve yes`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ agcorePlayground: 'paused-run', flow: 'resume' });
    expect(saved.state.pending.calls.map((call: { callId: string }) => call.callId)).toEqual([
      'call_002',
      'call_003',
    ]);

    const second = await runCli(['resume', file, '--approve', 'yes']);
    expect(second.code).toBe(0);
    const out = second.stdout;
    // The header wraps at 80 columns: the path may start a line of its own.
    expect(out.replace(/\n {2}/g, ' ')).toContain(`flow resume (resumed from ${file})`);
    expect(out).toContain(
      '⏸ the run waits on delete_file {"path":"access.log"} (call_002), delete_file {"path":"cities.csv"} (call_003)',
    );
    expect(out).toMatch(/✓ delete_file \d+ ms \{"deleted":"access\.log"\}/);
    expect(out).toContain('── turn 2');
    expect(out).toContain('✔ done');
    // The weather call ran in the first process only.
    expect(out).not.toContain('→ get_weather');
  });

  it('--audit and --trace work in both processes: the resume has its own invoke_agent span', async () => {
    const file = path.join(dir, 'observed.json');
    const audit = path.join(dir, 'observed.jsonl');
    const first = await runCli(['--flow', 'resume', '--state-file', file, '--audit', audit]);
    expect(first.code).toBe(0);
    const second = await runCli(['resume', file, '--approve', 'yes', '--audit', audit, '--trace']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/invoke_agent .*\n(.*\n)*.*execute_tool delete_file/);
    const lines = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const calls = lines.map((line) => `${line.tool}:${line.outcome}`);
    // The weather call ran (and was written) in the first process, the deletions in the second.
    expect(calls[0]).toBe('get_weather:ok');
    expect(calls.filter((call) => call === 'delete_file:ok')).toHaveLength(2);
    expect(new Set(lines.map((line) => line.sessionId)).size).toBe(1);
  });

  it('a run file whose pending call was altered is refused (exit 2), nothing runs', async () => {
    const file = path.join(dir, 'altered.json');
    expect((await runCli(['--flow', 'resume', '--state-file', file])).code).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    saved.state.pending.response.message.tool_calls[1].function.arguments = '{"path":"notes.txt"}';
    writeFileSync(file, JSON.stringify(saved));
    const result = await runCli(['resume', file, '--approve', 'yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/does not match its hash: its arguments were altered/);
    expect(result.stdout).not.toContain('delete_file {"path"');
  });

  it('with AGCORE_STATE_SECRET the file is sealed: the same secret resumes it, none or another does not', async () => {
    const file = path.join(dir, 'sealed.json');
    const secret = 'x'.repeat(40);
    expect(
      (
        await runCli(['--flow', 'resume', '--state-file', file], {
          env: { AGCORE_STATE_SECRET: secret },
        })
      ).code,
    ).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).state.mac).toMatch(/^[0-9a-f]{64}$/);
    const without = await runCli(['resume', file, '--approve', 'no']);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('pass the same stateSecret');
    const other = await runCli(['resume', file, '--approve', 'no'], {
      env: { AGCORE_STATE_SECRET: 'y'.repeat(40) },
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('HMAC does not match');
    const short = await runCli(['resume', file], { env: { AGCORE_STATE_SECRET: 'short' } });
    expect(short.code).toBe(2);
    const same = await runCli(['resume', file, '--approve', 'no'], {
      env: { AGCORE_STATE_SECRET: secret },
    });
    expect(same.code).toBe(0);
  });

  it('a file that is not a paused run, or is missing, is bad input (exit 2)', async () => {
    const file = path.join(dir, 'other.json');
    writeFileSync(file, '{"hello": 1}');
    const wrong = await runCli(['resume', file]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('is not a paused run of the playground');
    const missing = await runCli(['resume', path.join(dir, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});

describe('--flow loop', () => {
  it('the 4th identical call is refused, the 5th ends the run; it ends as the flow shows (exit 0)', async () => {
    const result = await runCli(['--flow', 'loop']);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/✓ get_weather/g)).toHaveLength(3);
    expect(result.stdout.match(/✗ get_weather \d+ ms loop_detected/g)).toHaveLength(2);
    expect(result.stdout).toContain('● ended as this flow shows: loop_detected');
    expect(result.stdout).toMatch(/11 tool +call_005 Error \[loop_detected\]/);
  });
});

describe('chat shows approvals inline', () => {
  it('asks at the prompt: y approves, n denies, a question gets the next line as its answer', async () => {
    const input = [
      'delete notes.txt',
      '/allow delete',
      'delete notes.txt',
      'y',
      'transfer 9000 to Bob',
      'yes',
      'delete cities.csv',
      'n',
      '/exit',
    ].join('\n');
    const result = await runCli(['chat'], { input: `${input}\n` });
    expect(result.code).toBe(0);
    const out = result.stdout;
    // Refused by the policy first: nobody is asked.
    expect(out).toMatch(/✗ delete_file \d+ ms permission_denied/);
    expect(out).toContain('? approve delete_file {"path":"notes.txt"}? [y/N] y\n');
    expect(out).toMatch(/✓ delete_file \d+ ms \{"deleted":"notes\.txt"\}/);
    expect(out).toContain(
      '? transfer_money asks: A suspicious transfer of 9 000 € to Bob: freeze the account? (yes/no) › yes\n',
    );
    expect(out).toMatch(/✓ transfer_money \d+ ms \{"frozen":true/);
    expect(out).toContain('✗ denied delete_file');
    expect(out).toContain('you › /exit\nbye');
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('on a terminal (a pseudo-terminal from `script`)', () => {
  it('--flow approve asks y/n per call', () => {
    const result = spawnSync(
      'script',
      [
        '-qec',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} --flow approve`,
        '/dev/null',
      ],
      { env: baseEnv({ NO_COLOR: '1' }), encoding: 'utf8', input: 'y\nn\n', timeout: 60_000 },
    );
    expect(result.status).toBe(0);
    const out = result.stdout;
    expect(out).toContain('? approve delete_file {"path":"access.log"}? [y/N]');
    expect(out).toContain('✔ approved delete_file call_002');
    expect(out).toContain('✗ denied delete_file call_003: The person at the terminal said no.');
    expect(out).toContain('✔ done');
  });
});
