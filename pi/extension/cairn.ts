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
//   before_agent_start, turn_end    prepare, not waited for, once the context
//                                   is past half the window (or unknown): the compaction
//                                   of the session up to the entry before
//                                   the branch's last assistant message,
//                                   computed while the model answers;
//                                   session_before_compact hands it to pi,
//                                   keeping from that message, when pi would
//                                   keep it too (else compact runs then)
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

// A Prepared is a compaction cairn prepares ahead of pi's: of the session
// file up to the entry before kept, and cairn's reply once it comes.
type Prepared = { file: string; kept: string; reply: Promise<any>; done: boolean };

// prepare starts cairn's compaction of the session up to the entry before
// the branch's last assistant message, not waited for, when the context
// pi measures is past half the model's window (cairn's budget), or pi
// does not know it (replies without usage: a session cairn exported or
// crossed into pi), that message is no error pi retries from, no
// compaction follows it and no preparation is under way, and returns the preparations to keep: the last one done
// and the one under way. It never throws into pi.
function prepare(ctx: any, preps: Prepared[]): Prepared[] {
	const prev = preps.filter((p) => p.done).slice(-1);
	try {
		if (preps.some((p) => !p.done)) return preps;
		const usage = ctx.getContextUsage?.();
		const window = usage?.contextWindow ?? ctx.model?.contextWindow ?? 0;
		const file = ctx.sessionManager?.getSessionFile?.();
		if (!file || !window || usage?.tokens > 0 && usage.tokens < window / 2) return prev;
		const branch = ctx.sessionManager?.getBranch?.() ?? [];
		let k = branch.length - 1;
		while (k > 0 && !(branch[k]?.type === "message" && branch[k].message?.role === "assistant")) k--;
		if (k <= 0 || !branch[k].id || !branch[k].parentId || prev.some((p) => p.kept === branch[k].id)) return prev;
		const stop = branch[k].message?.stopReason;
		if (stop === "error" || stop === "aborted" || branch.slice(k).some((e: any) => e?.type === "compaction")) return prev;
		const input = JSON.stringify({ session_file: file, cwd: ctx.cwd, window, upto: branch[k].parentId });
		const p: Prepared = { file, kept: branch[k].id, reply: Promise.resolve(undefined), done: false };
		p.reply = ask(["hook", "--agent", "pi", "prepare"], input, ctx.cwd, TIMEOUT_MS).then((out) => {
			p.done = true;
			try {
				return out ? JSON.parse(out) : undefined;
			} catch {
				return undefined;
			}
		});
		return [...prev, p];
	} catch {
		return prev;
	}
}

// usePrepared returns a prepared compaction for pi's and the entry pi
// keeps from, or undefined: the newest done that holds, else the one under
// way, waited for. One holds when it is of this file, its kept entry on
// the branch pi compacts with no compaction after it, at or after where pi
// would keep from (what follows fits pi's keepRecentTokens), and its
// summary with that fits in pi's compaction point.
async function usePrepared(preps: Prepared[], event: any, window: number, file: string): Promise<any> {
	const order = [...preps.filter((p) => p.done).reverse(), ...preps.filter((p) => !p.done)];
	for (const p of order) {
		const reply = await holds(p, event, window, file);
		if (reply) return { ...reply, kept: p.kept };
	}
	return undefined;
}

async function holds(p: Prepared, event: any, window: number, file: string): Promise<any> {
	try {
		const prep = event.preparation;
		const entries = event.branchEntries ?? [];
		if (p.file !== file) return undefined;
		const k = entries.findIndex((e: any) => e?.id === p.kept);
		const first = entries.findIndex((e: any) => e?.id === prep.firstKeptEntryId);
		if (k <= 0 || first < 0 || k < first || entries.slice(k).some((e: any) => e?.type === "compaction")) return undefined;
		const reply = await Promise.race([p.reply, new Promise((r) => setTimeout(r, MOMENT_MS))]);
		if (typeof reply?.summary !== "string" || reply.summary.trim() === "" || reply.upto !== entries[k].parentId) return undefined;
		const room = window - (prep.settings?.reserveTokens ?? 16384) - (prep.settings?.keepRecentTokens ?? 20000);
		if (!(reply.tokens > 0) || reply.tokens > room) return undefined;
		return reply;
	} catch {
		return undefined;
	}
}

export default function (pi: any) {
	let start: Promise<any> | undefined;
	let prepared: Prepared[] = [];

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
		prepared = [];
		start = moment("start", { reason: event?.reason ?? "", resumed }, ctx);
	});

	pi.on("session_compact", (event: any, ctx: any) => {
		prepared = [];
		start = moment("start", { reason: "compact", prepared: event?.compactionEntry?.details?.prepared === true }, ctx);
	});

	pi.on("turn_end", (_event: any, ctx: any) => {
		prepared = prepare(ctx, prepared);
	});

	pi.on("before_agent_start", async (event: any, ctx: any) => {
		prepared = prepare(ctx, prepared);
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
		// ctx is read before any wait: pi may let go of it meanwhile.
		const window = ctx.model?.contextWindow ?? 0;
		const cwd = ctx.cwd;
		const began = Date.now();
		const ready = await usePrepared(prepared, event, window, file);
		if (ready) {
			return {
				compaction: {
					summary: ready.summary,
					firstKeptEntryId: ready.kept,
					tokensBefore: p.tokensBefore,
					details: { cairn: ready.session, ms: Date.now() - began, prepared: true },
				},
			};
		}
		const entries = event.branchEntries ?? [];
		const leaf = entries[entries.length - 1];
		const msg = leaf?.type === "message" ? leaf.message : undefined;
		const input = JSON.stringify({
			session_file: file,
			cwd,
			tokens_before: p.tokensBefore,
			window,
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
		const out = await ask(["hook", "--agent", "pi", "compact"], input, cwd, TIMEOUT_MS, event.signal);
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
