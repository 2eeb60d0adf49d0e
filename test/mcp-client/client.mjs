// Drive `kftrain mcp` with a client nobody here wrote: the official MCP TypeScript SDK.
//
// Usage: node client.mjs KFTRAIN_BINARY WORKDIR
//
// Writes two job files into WORKDIR, spawns `KFTRAIN_BINARY mcp --local --root WORKDIR` through
// the SDK's StdioClientTransport (state under WORKDIR/state, never the user's), and runs every
// tool through the SDK's Client. One line per step, "ok - NAME" or "not ok - NAME: REASON", then
// "N passed, M failed"; exit 1 when any step failed.
//
// The SDK's Client checks results itself: listTools() caches a validator for each tool's
// outputSchema, and every callTool() then validates the result's structuredContent against it,
// throwing an McpError on a mismatch. A server result that breaks its own schema therefore fails
// the step that called the tool, with the SDK's message.

import fs from 'node:fs';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const PROTOCOL_VERSION = '2025-11-25';
const OVERALL_MS = 240_000; // the whole run, whatever happens
const STEP_MS = 30_000; // a step with no deadline of its own
const CALL_MS = 20_000; // the SDK's request timeout for a quick tool call
const SLOW_CALL_MS = 90_000; // estimate and submit run kftrain verbs that may take a while
const WAIT_SECONDS = 120; // wait_for_job's own timeout_seconds

const TOOLS = [
  'render_job',
  'estimate_job',
  'submit_job',
  'list_jobs',
  'get_job_status',
  'get_job_logs',
  'wait_for_job',
  'delete_job',
  'tune_job',
  'get_tune_status',
  'diagnose_job',
  'top_job',
  'check_cluster',
];
const READ_ONLY_TOOLS = new Set([
  'render_job',
  'estimate_job',
  'list_jobs',
  'get_job_status',
  'get_job_logs',
  'wait_for_job',
  'get_tune_status',
  'diagnose_job',
  'top_job',
  'check_cluster',
]);

// JOB A runs kftrain's trainer: only rendered, estimated and tuned as a dry run, never run.
const JOB_A = `name: mcp-sdk-render
replicas: 2
trainer:
  dataset: synthetic
  model: mlp
  epochs: 1
  samples: 1024
`;
// JOB B is the user's own tiny program, run on this machine.
const JOB_B = `name: mcp-sdk-job
backend: local
replicas: 2
command: ["sh", "-c", "echo hello from rank $RANK of $WORLD_SIZE"]
`;
const JOB_B_NAME = 'mcp-sdk-job';

if (process.argv.length !== 4) {
  console.error('usage: node client.mjs KFTRAIN_BINARY WORKDIR');
  process.exit(2);
}
const binary = path.resolve(process.argv[2]);
const workdir = path.resolve(process.argv[3]);
const stateDir = path.join(workdir, 'state');

let passed = 0;
let failed = 0;
let serverStderr = '';

function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0 && serverStderr.trim()) {
    console.log('# server stderr (last lines):');
    for (const line of serverStderr.trimEnd().split('\n').slice(-20)) {
      console.log(`#   ${line}`);
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}

const overall = setTimeout(() => {
  failed += 1;
  console.log(`not ok - overall deadline: the run took more than ${OVERALL_MS / 1000}s`);
  try {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  } catch {
    // already gone
  }
  finish();
}, OVERALL_MS);

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function show(value) {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

// Run one named step within its deadline; a thrown error (the SDK's included) fails it.
async function step(name, body, ms = STEP_MS) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result within ${ms / 1000}s`)), ms);
  });
  try {
    await Promise.race([body(), deadline]);
    passed += 1;
    console.log(`ok - ${name}`);
    return true;
  } catch (error) {
    failed += 1;
    const reason = error instanceof Error ? error.message : String(error);
    console.log(`not ok - ${name}: ${reason.replace(/\s+/g, ' ').trim()}`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

// --- set up the work directory ---------------------------------------------------------------

fs.mkdirSync(workdir, { recursive: true });
// The state directory is this test's own: start it empty so a job left by an earlier run
// cannot make the submit fail.
fs.rmSync(stateDir, { recursive: true, force: true });
fs.mkdirSync(stateDir, { recursive: true });
fs.writeFileSync(path.join(workdir, 'job.yaml'), JOB_A);
fs.writeFileSync(path.join(workdir, 'job-b.yaml'), JOB_B);

const transport = new StdioClientTransport({
  command: binary,
  args: ['mcp', '--local', '--root', workdir],
  env: { ...process.env, XDG_STATE_HOME: stateDir },
  cwd: workdir,
  stderr: 'pipe',
});
transport.stderr?.on('data', (chunk) => {
  serverStderr = (serverStderr + chunk.toString()).slice(-16_384);
});
// The Transport interface's hook: the Client hands it the version the server agreed to.
let negotiatedVersion = null;
transport.setProtocolVersion = (version) => {
  negotiatedVersion = version;
};

const client = new Client({ name: 'kftrain-mcp-sdk-test', version: '1.0.0' });
let child = null; // the server process, to see how it exits
let childExit = null;

async function call(name, args, options = {}) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: CALL_MS, ...options });
}

// A result the tool meant as success: not isError, with structuredContent (already validated by
// the SDK against the tool's outputSchema) mirrored in a text block.
function success(result, tool) {
  if (result.isError) {
    throw new Error(`${tool} returned isError: ${show(result.content?.[0]?.text)}`);
  }
  const structured = result.structuredContent;
  check(structured && typeof structured === 'object', `${tool}: no structuredContent`);
  const text = result.content?.find((block) => block.type === 'text')?.text;
  check(typeof text === 'string', `${tool}: no text content block`);
  return structured;
}

// A tool error: isError true with a message, not a thrown protocol error.
function toolError(result, tool) {
  check(result.isError === true, `${tool}: expected isError true, got ${show(result)}`);
  const text = result.content?.find((block) => block.type === 'text')?.text ?? '';
  check(text.trim() !== '', `${tool}: isError result without a message`);
  return text;
}

// --- 1. initialize -----------------------------------------------------------------------------

const connected = await step('initialize: the SDK client connects over stdio', async () => {
  await client.connect(transport, { timeout: CALL_MS });
  child = transport._process; // SDK-internal in 1.32.2 (pinned): the spawned server
  child?.once('exit', (code, signal) => {
    childExit = { code, signal };
  });
});
if (!connected) {
  clearTimeout(overall);
  await transport.close().catch(() => {});
  finish();
}

await step(`initialize: protocol ${PROTOCOL_VERSION} agreed`, async () => {
  check(negotiatedVersion === PROTOCOL_VERSION, `agreed on ${show(negotiatedVersion)}`);
});

await step('initialize: server names itself kftrain, with a version', async () => {
  const info = client.getServerVersion();
  check(info?.name === 'kftrain', `serverInfo ${show(info)}`);
  check(typeof info.version === 'string' && info.version !== '', `serverInfo ${show(info)}`);
});

await step('initialize: server gives instructions and the tools capability', async () => {
  const instructions = client.getInstructions();
  check(typeof instructions === 'string' && instructions.trim() !== '', 'no instructions');
  check(client.getServerCapabilities()?.tools, `capabilities ${show(client.getServerCapabilities())}`);
});

// --- 2. tools/list -----------------------------------------------------------------------------

let tools = [];
await step('tools/list: exactly the 11 kftrain tools', async () => {
  const result = await client.listTools(undefined, { timeout: CALL_MS });
  // One page: a second listTools() would replace the SDK's cached output validators.
  check(result.nextCursor === undefined, `unexpected nextCursor ${show(result.nextCursor)}`);
  tools = result.tools;
  const names = tools.map((tool) => tool.name).sort();
  check(show(names) === show([...TOOLS].sort()), `got ${show(names)}`);
});

await step('tools/list: every tool has title, description, schemas and boolean hints', async () => {
  check(tools.length > 0, 'no tools listed');
  for (const tool of tools) {
    check(typeof tool.title === 'string' && tool.title !== '', `${tool.name}: no title`);
    check(typeof tool.description === 'string' && tool.description !== '', `${tool.name}: no description`);
    check(tool.inputSchema?.type === 'object', `${tool.name}: inputSchema ${show(tool.inputSchema)}`);
    check(tool.outputSchema?.type === 'object', `${tool.name}: outputSchema ${show(tool.outputSchema)}`);
    const hints = tool.annotations ?? {};
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      check(typeof hints[hint] === 'boolean', `${tool.name}: annotations.${hint} is ${show(hints[hint])}`);
    }
  }
});

await step('tools/list: hints say which tools only read and which destroy', async () => {
  for (const tool of tools) {
    const readOnly = READ_ONLY_TOOLS.has(tool.name);
    check(tool.annotations.readOnlyHint === readOnly, `${tool.name}: readOnlyHint ${tool.annotations.readOnlyHint}`);
    const destructive = tool.name === 'delete_job';
    check(tool.annotations.destructiveHint === destructive, `${tool.name}: destructiveHint ${tool.annotations.destructiveHint}`);
  }
});

// The SDK's own output validation must be on, or a broken structuredContent would pass unseen.
// getToolOutputValidator is TypeScript-private in the SDK (1.32.2, pinned) but it is the very
// validator callTool() applies.
await step("SDK: output-schema validation armed for every tool (the SDK's own check)", async () => {
  check(typeof client.getToolOutputValidator === 'function', 'this SDK has no getToolOutputValidator');
  for (const name of TOOLS) {
    check(typeof client.getToolOutputValidator(name) === 'function', `no validator cached for ${name}`);
  }
  const verdict = client.getToolOutputValidator('render_job')({});
  check(verdict.valid === false, 'render_job validator accepted {} (kind, name, manifest required)');
});

// --- 3. read-only tools on JOB A -----------------------------------------------------------------

await step('render_job job.yaml: a PyTorchJob manifest (validated by the SDK)', async () => {
  const out = success(await call('render_job', { job_file: 'job.yaml' }), 'render_job');
  check(out.kind === 'PyTorchJob', `kind ${show(out.kind)}`);
  check(out.name === 'mcp-sdk-render', `name ${show(out.name)}`);
  check(out.manifest?.kind === 'PyTorchJob', `manifest.kind ${show(out.manifest?.kind)}`);
  check(out.manifest?.metadata?.name === 'mcp-sdk-render', `manifest.metadata ${show(out.manifest?.metadata)}`);
});

await step('estimate_job job.yaml at replicas [1,2]: two rows', async () => {
  const out = success(
    await call('estimate_job', { job_file: 'job.yaml', replicas: [1, 2] }, { timeout: SLOW_CALL_MS }),
    'estimate_job',
  );
  check(out.job === 'mcp-sdk-render', `job ${show(out.job)}`);
  check(Array.isArray(out.rows) && out.rows.length === 2, `rows ${show(out.rows)}`);
  check(show(out.rows.map((row) => row.replicas)) === '[1,2]', `rows ${show(out.rows)}`);
  for (const row of out.rows) {
    check(row.total_seconds > 0, `row ${show(row)}: no time`);
  }
  check(Array.isArray(out.assumptions) && out.assumptions.length > 0, 'no assumptions');
}, SLOW_CALL_MS + 5_000);

// --- 4. submit JOB B -------------------------------------------------------------------------------

await step('submit_job job-b.yaml (default dry run): manifest, nothing submitted', async () => {
  const out = success(
    await call('submit_job', { job_file: 'job-b.yaml' }, { timeout: SLOW_CALL_MS }),
    'submit_job',
  );
  check(out.dry_run === true, `dry_run ${show(out.dry_run)}`);
  check(out.submitted === false, `submitted ${show(out.submitted)}`);
  check(out.name === JOB_B_NAME, `name ${show(out.name)}`);
  check(out.manifest && typeof out.manifest === 'object', 'no manifest');
  check(out.manifest.kind === out.kind, `manifest.kind ${show(out.manifest.kind)} vs kind ${show(out.kind)}`);
}, SLOW_CALL_MS + 5_000);

await step('submit_job dry_run:false without confirm: isError, nothing submitted', async () => {
  const text = toolError(await call('submit_job', { job_file: 'job-b.yaml', dry_run: false }), 'submit_job');
  check(/confirm/.test(text), `message does not say how to confirm: ${show(text)}`);
});

await step('submit_job dry_run:false confirm:true: submitted', async () => {
  const out = success(
    await call('submit_job', { job_file: 'job-b.yaml', dry_run: false, confirm: true }, { timeout: SLOW_CALL_MS }),
    'submit_job',
  );
  check(out.submitted === true, `submitted ${show(out.submitted)}: ${show(out.message)}`);
  check(out.dry_run === false, `dry_run ${show(out.dry_run)}`);
  check(out.name === JOB_B_NAME, `name ${show(out.name)}`);
}, SLOW_CALL_MS + 5_000);

await step('list_jobs {}: lists the submitted job', async () => {
  const out = success(await call('list_jobs', {}), 'list_jobs');
  check(Array.isArray(out.items), `items ${show(out.items)}`);
  check(out.items.some((item) => item?.name === JOB_B_NAME), `no ${JOB_B_NAME} in ${show(out.items.map((i) => i?.name))}`);
});

// --- 5. wait with progress ---------------------------------------------------------------------

await step('wait_for_job: met, Succeeded, with progress notifications', async () => {
  const progress = [];
  const result = await call(
    'wait_for_job',
    { name: JOB_B_NAME, timeout_seconds: WAIT_SECONDS },
    {
      onprogress: (p) => progress.push(p),
      timeout: 30_000,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: (WAIT_SECONDS + 20) * 1000,
    },
  );
  const out = success(result, 'wait_for_job');
  check(out.outcome === 'met', `outcome ${show(out.outcome)}`);
  check(out.for === 'succeeded', `for ${show(out.for)}`);
  check(out.status?.state === 'Succeeded', `status.state ${show(out.status?.state)}: ${show(out.status?.message)}`);
  check(progress.length >= 1, 'no progress notification received');
  check(progress.some((p) => typeof p.message === 'string' && p.message.includes(JOB_B_NAME)),
    `no progress message names the job: ${show(progress)}`);
}, (WAIT_SECONDS + 25) * 1000);

await step('get_job_status: Succeeded, both replicas exited 0', async () => {
  const out = success(await call('get_job_status', { name: JOB_B_NAME }), 'get_job_status');
  check(out.name === JOB_B_NAME, `name ${show(out.name)}`);
  check(out.state === 'Succeeded', `state ${show(out.state)}`);
  check(Array.isArray(out.replicas) && out.replicas.length === 2, `replicas ${show(out.replicas)}`);
  for (const replica of out.replicas) {
    check(replica.state === 'Succeeded' && replica.exitCode === 0, `replica ${show(replica)}`);
  }
});

await step('diagnose_job: a succeeded job has no cause, every replica on its time axis', async () => {
  const out = success(await call('diagnose_job', { name: JOB_B_NAME }), 'diagnose_job');
  check(out.verdict === 'succeeded', `verdict ${show(out.verdict)}`);
  check(out.cause === 'none', `cause ${show(out.cause)}`);
  check(Array.isArray(out.timeline) && out.timeline.length === 2, `timeline ${show(out.timeline)}`);
});

await step('check_cluster job-b.yaml: this machine can run it, every check with its state', async () => {
  const out = success(await call('check_cluster', { job_file: 'job-b.yaml' }, { timeout: SLOW_CALL_MS }),
    'check_cluster');
  check(out.passed === true, `passed ${show(out.passed)}: ${show(out.verdict)}`);
  check(typeof out.verdict === 'string' && out.verdict.startsWith('ready'), `verdict ${show(out.verdict)}`);
  check(Array.isArray(out.checks) && out.checks.some((c) => c.name === 'state directory' && c.state === 'ok'),
    `no state directory check in ${show(out.checks)}`);
});

// --- 6. logs ---------------------------------------------------------------------------------------

await step('get_job_logs: each replica printed its rank, prefixed with its name', async () => {
  const out = success(await call('get_job_logs', { name: JOB_B_NAME }), 'get_job_logs');
  check(out.name === JOB_B_NAME, `name ${show(out.name)}`);
  check(/^master-0 \| hello from rank 0 of 2$/m.test(out.text), `no "master-0 | hello from rank 0 of 2" in ${show(out.text)}`);
  check(/^worker-0 \| hello from rank 1 of 2$/m.test(out.text), `no "worker-0 | hello from rank 1 of 2" in ${show(out.text)}`);
  check(out.lines >= 2, `lines ${show(out.lines)}`);
  check(out.truncated === false, `truncated ${show(out.truncated)}`);
});

// --- 7. tune dry run, tune status ------------------------------------------------------------------

await step('tune_job job.yaml lr=0.001:0.1:log (dry run): an Experiment', async () => {
  const out = success(
    await call('tune_job', { job_file: 'job.yaml', params: ['lr=0.001:0.1:log'] }, { timeout: SLOW_CALL_MS }),
    'tune_job',
  );
  check(out.dry_run === true, `dry_run ${show(out.dry_run)}`);
  check(out.experiment?.kind === 'Experiment', `experiment.kind ${show(out.experiment?.kind)}`);
  const names = (out.experiment?.spec?.parameters ?? []).map((p) => p?.name);
  check(names.includes('lr'), `no lr among the Experiment's parameters ${show(names)}`);
}, SLOW_CALL_MS + 5_000);

await step('get_tune_status nosuch: isError (a tool error, not a protocol error)', async () => {
  const text = toolError(await call('get_tune_status', { name: 'nosuch' }), 'get_tune_status');
  check(/nosuch/.test(text), `message does not name the search: ${show(text)}`);
});

// --- 8. delete ---------------------------------------------------------------------------------------

await step('delete_job without confirm: isError, job kept', async () => {
  toolError(await call('delete_job', { name: JOB_B_NAME }), 'delete_job');
  const out = success(await call('get_job_status', { name: JOB_B_NAME }), 'get_job_status');
  check(out.name === JOB_B_NAME, `job gone after an unconfirmed delete: ${show(out)}`);
});

await step('delete_job confirm:true: deleted', async () => {
  const out = success(await call('delete_job', { name: JOB_B_NAME, confirm: true }), 'delete_job');
  check(out.deleted === true, `deleted ${show(out.deleted)}`);
  check(out.name === JOB_B_NAME, `name ${show(out.name)}`);
});

await step('list_jobs after delete: the job is gone', async () => {
  const out = success(await call('list_jobs', {}), 'list_jobs');
  check(!out.items.some((item) => item?.name === JOB_B_NAME), `${JOB_B_NAME} still listed`);
});

// --- close -------------------------------------------------------------------------------------------

await step('close: the server exits 0 when its input ends', async () => {
  const exited = new Promise((resolve) => {
    if (childExit || !child) resolve();
    else child.once('exit', () => resolve());
  });
  await client.close(); // ends the server's stdin; SIGTERM only after 2s without an exit
  await exited;
  check(child, 'no server process seen');
  check(childExit?.code === 0 && childExit?.signal === null, `exit ${show(childExit)}`);
}, 10_000);

clearTimeout(overall);
finish();
