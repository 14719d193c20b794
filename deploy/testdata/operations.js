// operations.js lists every operation of GitHub's REST description with whether GitHub
// says a GitHub App can call it (x-github.enabledForGitHubApps), one per line:
//   METHOD /path apps|no-apps
// for deploy/permissions_test.go. Usage (see README.md):
//   node operations.js path/to/api.github.com.json > github-operations.txt
const fs = require("fs");
const src = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const lines = [];
for (const [path, item] of Object.entries(src.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!op || typeof op !== "object" || !op["x-github"]) continue;
    lines.push(`${method.toUpperCase()} ${path} ${op["x-github"].enabledForGitHubApps ? "apps" : "no-apps"}`);
  }
}
lines.sort();
process.stdout.write(`# From @octokit/openapi ${src.info.version} (generated/api.github.com.json) by operations.js\n` + lines.join("\n") + "\n");
