// cairn's pi extension, written by "cairn install pi". It runs "cairn hook
// --agent pi EVENT" at pi's moments and only passes what pi gives it and
// what cairn answers:
//   session_start, session_compact  start: cairn's context, given with the
//                                   next prompt
//   before_agent_start              prompt: pressure notes at pi's own window
//                                   and compaction point, frame suggestions;
//                                   cairn's texts join the prompt's message
//                                   (the context event), for the person a
//                                   notification
//   session_before_compact          compact: cairn inscribes the session and
//                                   revives it within a budget of the model's
//                                   window (continuation block, index, last
//                                   rounds in full) as the compaction
//   session_shutdown                end: the session's end line
// If cairn is missing, fails, is slow (a compaction 30 s, another moment
// 10 s, or $CAIRN_PI_TIMEOUT_MS for either) or answers nothing, the moment
// goes on without it: pi compacts by itself.
import { spawn } from "node:child_process";

const CAIRN = "@CAIRN@";
const TIMEOUT_MS = Number(process.env.CAIRN_PI_TIMEOUT_MS) || 30000;
const MOMENT_MS = Math.min(TIMEOUT_MS, 10000);
const TYPE = "cairn";

function ask(args: string[], input: string, cwd: string, timeout: number, signal?: AbortSignal): Promise<string | undefined> {
	return new Promise((resolve) => {
		let out = "";
		let child;
		try {
			child = spawn(CAIRN, args, { cwd, stdio: ["pipe", "pipe", "ignore"] });
		} catch {
			return resolve(undefined);
		}
		const timer = setTimeout(() => child.kill(), timeout);
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

// moment runs a loop event and returns its reply, { agent, person }: {}
// on any failure, a ctx pi has let go of included (session_compact may
// come after print mode's shutdown), never an error thrown into pi.
async function moment(event: string, fields: any, ctx: any): Promise<any> {
	try {
		const input = JSON.stringify({
			session_id: ctx.sessionManager?.getSessionId?.() ?? "",
			session_file: ctx.sessionManager?.getSessionFile?.() ?? "",
			cwd: ctx.cwd,
			...fields,
		});
		const out = await ask(["hook", "--agent", "pi", event], input, ctx.cwd, MOMENT_MS);
		return out ? JSON.parse(out) : {};
	} catch {
		return {};
	}
}

function text(content: any): string {
	if (typeof content === "string") return content;
	return Array.isArray(content) ? content.map((c: any) => (c?.type === "text" ? c.text : "")).join("") : "";
}

export default function (pi: any) {
	let start: Promise<any> | undefined;

	// A session pi loads goes on from cairn's context (a resume: only what
	// changed is given) when what pi sends still holds it: after its last
	// compaction's kept entry, on the branch it resumes.
	pi.on("session_start", (event: any, ctx: any) => {
		let resumed = false;
		try {
			const branch = ctx.sessionManager?.getBranch?.() ?? [];
			let from = 0;
			for (let i = branch.length - 1; i >= 0; i--) {
				if (branch[i]?.type !== "compaction") continue;
				const kept = branch.findIndex((e: any) => e?.id === branch[i].firstKeptEntryId);
				from = kept >= 0 ? kept : i;
				break;
			}
			resumed = branch.slice(from).some((e: any) => e?.type === "custom_message" && e.customType === TYPE);
		} catch {}
		start = moment("start", { reason: event?.reason ?? "", resumed }, ctx);
	});

	pi.on("session_compact", (_event: any, ctx: any) => {
		start = moment("start", { reason: "compact" }, ctx);
	});

	pi.on("before_agent_start", async (event: any, ctx: any) => {
		const given = start ? await start : {};
		start = undefined;
		let usage: any, model: any;
		try {
			usage = ctx.getContextUsage?.();
			model = ctx.model;
		} catch {}
		const now = await moment("prompt", {
			prompt: event?.prompt ?? "",
			model: model?.id ?? "",
			tokens: usage?.tokens ?? 0,
			window: usage?.contextWindow ?? model?.contextWindow ?? 0,
		}, ctx);
		for (const person of [given?.person, now?.person]) {
			try {
				if (typeof person === "string" && person !== "") ctx.ui?.notify?.(person, "info");
			} catch {}
		}
		const agent = [given?.agent, now?.agent].filter((t) => typeof t === "string" && t.trim() !== "").join("\n\n");
		if (agent === "") return;
		return { message: { customType: TYPE, content: agent, display: false } };
	});

	// cairn's message follows the prompt pi made it for: sent as a part of
	// the prompt's own user message, not as a second user message in a row.
	pi.on("context", (event: any) => {
		const out: any[] = [];
		let joined = false;
		for (const m of event.messages ?? []) {
			const prev = out[out.length - 1];
			if (m?.role === "custom" && m.customType === TYPE && prev?.role === "user") {
				const content = typeof prev.content === "string" ? [{ type: "text", text: prev.content }] : [...(prev.content ?? [])];
				out[out.length - 1] = { ...prev, content: [...content, { type: "text", text: text(m.content) }] };
				joined = true;
				continue;
			}
			out.push(m);
		}
		if (joined) return { messages: out };
	});

	pi.on("session_shutdown", async (event: any, ctx: any) => {
		await moment("end", { reason: event?.reason ?? "" }, ctx);
	});

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
		const began = Date.now();
		const out = await ask(["hook", "--agent", "pi", "compact"], input, ctx.cwd, TIMEOUT_MS, event.signal);
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
				details: { cairn: reply.session, ms: Date.now() - began },
			},
		};
	});
}
