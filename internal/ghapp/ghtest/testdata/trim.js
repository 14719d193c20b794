// trim.js keeps only the operations the fake GitHub serves (and every component they
// reference, transitively) from @octokit/openapi's api.github.com.json.
// Usage: node trim.js path/to/api.github.com.json > api.github.com.trimmed.json
const fs = require("fs");
const src = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const keep = {
  "/app": ["get"],
  "/app/installations/{installation_id}/access_tokens": ["post"],
  "/app/installations": ["get"],
  "/app-manifests/{code}/conversions": ["post"],
  "/app/hook/deliveries": ["get"],
  "/app/hook/deliveries/{delivery_id}/attempts": ["post"],
  "/installation/repositories": ["get"],
  "/orgs/{org}/repos": ["post"],
  "/repos/{owner}/{repo}": ["get"],
  "/repos/{owner}/{repo}/contents/{path}": ["get"],
  "/repos/{owner}/{repo}/issues": ["get"],
  "/repos/{owner}/{repo}/issues/{issue_number}": ["get"],
  "/repos/{owner}/{repo}/issues/{issue_number}/comments": ["get", "post"],
  "/repos/{owner}/{repo}/issues/comments/{comment_id}": ["get", "patch"],
  "/repos/{owner}/{repo}/check-runs": ["post"],
  "/repos/{owner}/{repo}/check-runs/{check_run_id}": ["get", "patch"],
  "/repos/{owner}/{repo}/commits/{ref}/check-runs": ["get"],
  "/repos/{owner}/{repo}/pulls": ["get", "post"],
  "/repos/{owner}/{repo}/pulls/{pull_number}": ["get", "patch"],
  "/repos/{owner}/{repo}/pulls/{pull_number}/reviews": ["get", "post"],
  "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}": ["put"],
  "/repos/{owner}/{repo}/collaborators/{username}/permission": ["get"],
  "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": ["post"],
  "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs": ["get"],
  "/repos/{owner}/{repo}/actions/runs/{run_id}": ["get"],
  "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs": ["get"],
  "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts": ["get"],
  "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}": ["get"],
};
const out = {
  openapi: src.openapi,
  info: src.info,
  servers: src.servers,
  paths: {},
  components: {},
};
for (const [p, methods] of Object.entries(keep)) {
  const item = {};
  for (const m of methods) {
    const op = JSON.parse(JSON.stringify(src.paths[p][m]));
    delete op["x-github"];
    delete op.description;
    delete op.externalDocs;
    item[m] = op;
  }
  if (src.paths[p].parameters) item.parameters = src.paths[p].parameters;
  out.paths[p] = item;
}
const seen = new Set();
function walk(v) {
  if (Array.isArray(v)) return v.forEach(walk);
  if (v === null || typeof v !== "object") return;
  for (const [k, x] of Object.entries(v)) {
    if (k === "$ref" && typeof x === "string" && !seen.has(x)) {
      seen.add(x);
      const [, , kind, name] = x.split("/");
      out.components[kind] = out.components[kind] || {};
      out.components[kind][name] = src.components[kind][name];
      walk(src.components[kind][name]);
    } else walk(x);
  }
}
walk(out.paths);
function strip(v) {
  if (Array.isArray(v)) return v.forEach(strip);
  if (v === null || typeof v !== "object") return;
  if (typeof v.description === "string" && (v.type || v.$ref || v.properties || v.items)) delete v.description;
  Object.values(v).forEach(strip);
}
strip(out.components.schemas);
for (const kind of Object.keys(out.components)) {
  out.components[kind] = Object.fromEntries(Object.entries(out.components[kind]).sort());
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
