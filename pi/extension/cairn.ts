// cairn's pi extension, written by "cairn install pi". On
// session_before_compact it asks cairn for the compaction: cairn inscribes
// the session and revives it within a budget of the model's window
// (continuation block, index, last rounds in full) and names the entry pi
// keeps from. The handler only passes what pi gives it and what cairn
// answers. If cairn is missing, fails, is slow (30 s, or $CAIRN_PI_TIMEOUT_MS) or answers no
// summary, it returns nothing and pi compacts by itself.
import { spawn } from "node:child_process";

const CAIRN = "@CAIRN@";
const TIMEOUT_MS = Number(process.env.CAIRN_PI_TIMEOUT_MS) || 30000;

function ask(args: string[], input: string, cwd: string, signal?: AbortSignal): Promise<string | undefined> {
	return new Promise((resolve) => {
		let out = "";
		let child;
		try {
			child = spawn(CAIRN, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
		} catch {
			return resolve(undefined);
		}
		const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
		const stop = () => child.kill();
		signal?.addEventListener("abort", stop);
		child.on("error", () => resolve(undefined));
		child.stdout.on("data", (d) => (out += d));
		child.on("close", (code) => {
			clearTimeout(timer);
			signal?.removeEventListener("abort", stop);
			resolve(code === 0 ? out : undefined);
		});
		child.stdin.on("error", () => {});
		child.stdin.end(input);
	});
}

export default function (pi: any) {
	pi.on("session_before_compact", async (event: any, ctx: any) => {
		const p = event.preparation;
		const file = ctx.sessionManager?.getSessionFile?.();
		if (!p || !p.firstKeptEntryId || !file) return;
		const entries = event.branchEntries ?? [];
		const leaf = entries[entries.length - 1];
		const msg = leaf?.type === "message" ? leaf.message : undefined;
		const input = JSON.stringify({
			session_file: file,
			cwd: ctx.cwd,
			tokens_before: p.tokensBefore,
			window: ctx.model?.contextWindow ?? 0,
			reserve_tokens: p.settings?.reserveTokens ?? 0,
			first_kept_entry_id: p.firstKeptEntryId,
			leaf: {
				id: leaf?.id ?? "",
				type: leaf?.type ?? "",
				role: msg?.role ?? "",
				stop_reason: msg?.stopReason ?? "",
				tool_calls: Array.isArray(msg?.content) ? msg.content.filter((c: any) => c?.type === "toolCall").length : 0,
			},
		});
		const start = Date.now();
		const out = await ask(["hook", "--agent", "pi", "compact"], input, ctx.cwd, event.signal);
		if (out === undefined) return;
		let reply: any;
		try {
			reply = JSON.parse(out);
		} catch {
			return;
		}
		if (typeof reply?.summary !== "string" || reply.summary.trim() === "" || typeof reply.first_kept_entry_id !== "string") return;
		return {
			compaction: {
				summary: reply.summary,
				firstKeptEntryId: reply.first_kept_entry_id,
				tokensBefore: p.tokensBefore,
				details: { cairn: reply.session, ms: Date.now() - start },
			},
		};
	});
}
