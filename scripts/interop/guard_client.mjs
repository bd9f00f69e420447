// A real MCP SDK client through `mcpvet guard` (scripts/interop.sh, "guard" section).
//
//   node guard_client.mjs SDK_DIR EXPECT_TOOLS CALL_TOOL CALL_ARGS_JSON -- CMD ARGS...
//
// SDK_DIR is the installed @modelcontextprotocol/sdk package folder (the interop cache);
// EXPECT_TOOLS a comma-separated list of tool names that must all be listed; CALL_TOOL is
// called with CALL_ARGS_JSON and must return a result that is not an error, with content.
// Connects over stdio with the SDK's own transport, lists the tools, calls one, closes.
// Prints one JSON summary line on stdout; exits 0 on success, 1 on any failure.
import { pathToFileURL } from "node:url";
import path from "node:path";

function fail(msg) {
  process.stderr.write(`guard_client: ${msg}\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep !== 4 || argv.length < 6) {
  fail("usage: guard_client.mjs SDK_DIR EXPECT_TOOLS CALL_TOOL CALL_ARGS_JSON -- CMD ARGS...");
}
const [sdkDir, expectList, callTool, callArgsJson] = argv.slice(0, 4);
const [command, ...args] = argv.slice(sep + 1);
const load = (rel) => import(pathToFileURL(path.join(sdkDir, "dist", "esm", rel)).href);

const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

let callArgs;
try {
  callArgs = JSON.parse(callArgsJson);
} catch (e) {
  fail(`CALL_ARGS_JSON is not JSON: ${e.message}`);
}

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "mcpvet-interop-guard", version: "1.0.0" });
const timer = setTimeout(() => fail("no answer within 60 s"), 60_000);
try {
  await client.connect(transport);
  const listed = await client.listTools();
  const names = listed.tools.map((t) => t.name);
  const missing = expectList.split(",").filter((n) => n && !names.includes(n));
  if (missing.length > 0) {
    fail(`tools/list lacks ${missing.join(", ")} (got ${names.join(", ")})`);
  }
  if (names.includes("mcpvet_guard_withheld")) {
    fail(`the guard withheld something: ${names.join(", ")}`);
  }
  const result = await client.callTool({ name: callTool, arguments: callArgs });
  if (result.isError) {
    fail(`${callTool} returned an error result: ${JSON.stringify(result.content).slice(0, 300)}`);
  }
  if (!Array.isArray(result.content) || result.content.length === 0) {
    fail(`${callTool} returned no content`);
  }
  const server = client.getServerVersion();
  process.stdout.write(
    JSON.stringify({
      server: server?.name ?? null,
      version: server?.version ?? null,
      tools: names.length,
      called: callTool,
      contentBlocks: result.content.length,
    }) + "\n",
  );
  await client.close();
} catch (e) {
  fail(`${e?.message ?? e}`);
} finally {
  clearTimeout(timer);
}
