/**
 * pi-sessions inside pi: `/sessions [ARGS]` hands the terminal to `pi-sessions ARGS` (the
 * browser by default) in the session's cwd and takes it back when it quits; and the
 * read-only MCP server `pi-sessions mcp` is registered, so the agent can ask its own history.
 *
 * PI_SESSIONS_COMMAND names the executable (default: `pi-sessions` on PATH);
 * PI_SESSIONS_MCP=0 leaves the MCP server out.
 */

import { spawnSync } from "node:child_process";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const command = process.env.PI_SESSIONS_COMMAND || "pi-sessions";

function splitArgs(text: string): string[] {
	// Words, with "double" or 'single' quotes around one that holds spaces.
	const found = text.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
	return found.map((word) => (/^(["']).*\1$/.test(word) ? word.slice(1, -1) : word));
}

function printsAndEnds(argv: string[]): boolean {
	// `/sessions list`, `/sessions search x`: a subcommand (a word), not the browser's PATH or flags
	return argv.length > 0 && /^[a-z]+$/.test(argv[0]) && !argv[0].includes("/");
}

export default function (pi: ExtensionAPI) {
	pi.registerCommand("sessions", {
		description: "Browse this project's pi sessions in pi-sessions (args: any pi-sessions subcommand)",
		handler: async (args, ctx) => {
			const argv = splitArgs(args ?? "");
			if (ctx.mode !== "tui") {
				ctx.ui.notify("/sessions needs the interactive terminal", "error");
				return;
			}
			const status = await ctx.ui.custom<number | null>((tui, _theme, _keys, done) => {
				tui.stop(); // the terminal is pi-sessions' until it quits
				const run = spawnSync(command, argv, { cwd: ctx.cwd, stdio: "inherit", env: process.env });
				if (!run.error && printsAndEnds(argv)) {
					// a printing subcommand: its output stays on the screen until a key is pressed
					spawnSync("sh", ["-c", 'printf "\\n[Enter: back to pi] "; read _'], { stdio: "inherit" });
				}
				tui.start();
				tui.requestRender(true);
				done(run.error ? null : run.status);
				return { render: () => [], invalidate: () => {} };
			});
			if (status === null) {
				ctx.ui.notify(`could not run ${command}: is pi-sessions installed (pip install pi-sessions)?`, "error");
			} else if (status !== 0) {
				ctx.ui.notify(`${command} ended with status ${status}`, "warning");
			}
		},
	});

	if (process.env.PI_SESSIONS_MCP !== "0") {
		pi.registerMcpServer("pi-sessions", {
			command,
			args: ["mcp"],
			description:
				"Read-only: search, list and read your own past pi sessions (the exact context at an entry, branches, files the model saw)",
		});
	}
}
