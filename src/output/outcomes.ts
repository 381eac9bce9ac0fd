// What use cases return and the presenter renders: typed outcomes, decided apart from printing.
// They sit here, below app/, so presenters read them without importing the use cases (app/ builds
// them, output/present.ts renders them, app/exit-code.ts turns them into exit codes).
import type { CliError } from '../errors.js';
import type { Hint } from '../hint.js';
import type { TaskGeneration } from '../protocol/constants.js';
import type { CallToolResult, ToolInfo } from '../protocol/task-wire.js';
import type { ServerEntry } from '../servers/server-entry.js';
import type { WatchEnd } from '../tasks/outcome.js';
import type { Principal } from '../tasks/principal.js';
import type { InputRequestSnapshot, TaskSnapshot } from '../tasks/task-snapshot.js';
import type { ListingMeta, VaultRecord } from '../vault/vault-record.js';

/** The task a command acts on: its record, its server, its handle. */
export interface TaskTarget {
  record: VaultRecord;
  /** False for a taskId inspected with --server and not saved: nothing is written to the vault. */
  persisted: boolean;
  entry: ServerEntry;
  taskId: string;
}

/** How a task-bearing command ended: what lifecycle logic saw, or the terminal state the vault holds. */
/** stored-terminal: the vault's terminal state, because the server forgot the task or (`unreachable`) cannot be reached. */
/**
 * not-visible: the task belongs to another principal than the stored sign-in's. `sent` false: its
 * handle was not sent at all; true: the server did not know it under this sign-in, which says
 * nothing about whether it exists (never lost).
 */
export type TaskEnd =
  | WatchEnd
  | { kind: 'stored-terminal'; snapshot: TaskSnapshot; storedAt: string; unreachable?: string }
  | { kind: 'not-visible'; snapshot?: TaskSnapshot; created: Principal; current?: Principal; sent: boolean };

/** One observation that is not the end of a watch (get, answer): the state, and what is still pending. */
export interface Observed {
  kind: 'observed';
  snapshot: TaskSnapshot;
  /** answer: keys the server still waits for that nobody answered (exit 5 while not terminal). */
  stillPending?: string[];
}

/** A task-bearing command's last word: what was observed about which record, and remarks for stderr. */
export interface TaskReport {
  kind: 'task';
  target: TaskTarget;
  end: TaskEnd | Observed;
  /** Lines for stderr that belong to the verdict (e.g. "nothing to answer"); printed after the state. */
  notes: Array<string | Hint>;
  /** watch --json: the final state is already the last streamed line. */
  statePrinted?: boolean;
  /** Fields added to the JSON document (answer: answered / stale / alreadyAnswered). */
  jsonExtra?: Record<string, unknown>;
}

/** cancel without --wait: the server acknowledged the request, which is not a cancellation. */
export interface CancelRequested {
  kind: 'cancel-requested';
  target: TaskTarget;
  /**
   * The task had ended before the cancel (`cancel --force`): `server`, the server refused the
   * cancel for that reason and its tasks/get showed the end; `vault`, the server took the request
   * and the end is the one the vault already held (an ended task does not change).
   */
  ended?: { snapshot: TaskSnapshot; by: 'server' | 'vault' };
}

/** cancel of a task the vault holds as finished: nothing was sent (the spec makes it a no-op). */
export interface CancelNotSent {
  kind: 'cancel-not-sent';
  target: TaskTarget;
  /** The terminal state stored in the vault, with its result or error. */
  snapshot: TaskSnapshot;
}

/** One of several watched tasks failed (unreachable server, refused auth, …): the others go on. */
export interface TaskFailure {
  kind: 'task-failure';
  target: TaskTarget;
  error: CliError;
}

/** Several tasks at once (`watch a b c`), in argument order. */
export interface ManyReports {
  kind: 'many';
  reports: Array<TaskReport | TaskFailure>;
  /** watch: each report was presented as its task ended; only the exit code is left. */
  presented?: boolean;
}

/** `watch --active` with no active task in the vault. */
export interface NothingToWatch {
  kind: 'nothing-to-watch';
}

/** One Ctrl-C over several watched tasks: those it left unfinished, to come back to. */
export interface WatchInterrupted {
  kind: 'watch-interrupted';
  waiting: TaskReport[];
  /** Started as `watch --active` (the way back is the same). */
  active: boolean;
}

/** tools/call answered at once, without a task. */
export interface DirectResult {
  kind: 'direct-result';
  record: VaultRecord;
  server: string;
  result: CallToolResult;
  /** The vault could not store the result (why): it is shown anyway, this being its only copy. */
  notStored?: string;
  /** The answer came after the call's wait ran out (the record was in doubt until then). */
  late?: true;
}

/** The server asked for input before creating any task, and none could be given: nothing started. */
export interface InputBeforeTask {
  kind: 'input-before-task';
  record: VaultRecord;
  server: string;
  inputRequests: Record<string, InputRequestSnapshot>;
}

/** call --detach: the handle is in the vault. */
export interface Detached {
  kind: 'detached';
  target: TaskTarget;
  snapshot: TaskSnapshot;
  /** Warnings for stderr (a malformed CreateTaskResult whose handle was kept). */
  notes?: Array<string | Hint>;
}

/** The request went out, no handle came back: the work may or may not exist. */
export interface InDoubt {
  kind: 'in-doubt';
  record: VaultRecord;
  server: string;
  reason: string;
  next: string | Hint;
  /** What the tool asked for before it was left in doubt (a 2025-11-25 call that asked mid-call). */
  inputRequests?: Record<string, InputRequestSnapshot>;
}

/** `answer --template`: the answers file's skeleton for what the task waits for (nothing sent). */
export interface AnswerTemplate {
  kind: 'answer-template';
  target: TaskTarget;
  template: Record<string, unknown>;
}

// ---- named servers (`server add | list | show | remove | import | check`) and `tools`

/** `server add`: the entry as stored; the sign-in it requires, when the server said so. */
export interface ServerAdded {
  kind: 'server-added';
  entry: ServerEntry;
  /** The server asked for a sign-in (`server login NAME` is the next step). */
  requiresSignIn?: boolean | undefined;
}

/** `server list`: every named server (the built-in demo first). */
export interface ServersListed {
  kind: 'servers-listed';
  entries: ServerEntry[];
}

/** `server show`: one entry, and whether and until when it is signed in (never a token). */
export interface ServerShown {
  kind: 'server-shown';
  entry: ServerEntry;
  signIn?: Record<string, unknown> | undefined;
}

/** `server remove`: the entry and its sign-in are gone; vaulted tasks stay. */
export interface ServerRemoved {
  kind: 'server-removed';
  name: string;
}

/** `server import`: the names taken from the file, and the ones refused with why (file text: unsanitised). */
export interface ServersImported {
  kind: 'servers-imported';
  imported: string[];
  skipped: Array<{ name: string; reason: string }>;
}

/** `server check`: what one fresh handshake and tools/list said. */
export interface ServerChecked {
  kind: 'server-checked';
  server: string;
  protocolVersion: string;
  generation: TaskGeneration;
  serverInfo: { name: string; version: string } | null;
  tasksExtension: boolean;
  /** The extension's id, as advertised (named in the human line). */
  tasksExtensionId: string;
  legacyTasks: boolean;
  legacyTaskCapabilities: { list: boolean; cancel: boolean; toolsCall: boolean } | null;
  /** The capabilities the server advertised (`tools`, `resources`, `prompts`, …); null when unknown. */
  capabilities: string[] | null;
  /** Whether the server offers tools at all (false: no `tools` capability, nothing was listed). */
  offersTools: boolean;
  tools: ToolInfo[];
}

/** `tools <server> [<tool>]`: the listed tools (or the one asked for), and the ones left out with why. */
export interface ToolsListed {
  kind: 'tools-listed';
  server: string;
  tools: ToolInfo[];
  /** False when the server has no `tools` capability (what it offers instead is in `capabilities`). */
  offersTools?: boolean;
  capabilities?: string[] | undefined;
  /** `tools <server> <tool>`: that tool only, with its argument table. */
  tool?: ToolInfo | undefined;
}

/** `show <ref>`: one vault record as stored (nothing is asked of the server). */
export interface RecordShown {
  kind: 'record-shown';
  record: VaultRecord;
}

/** One row of `list`: its `list --json` form as stored (UTF-8), and what the table shows of its record. */
export interface ListedRow {
  readonly json: Buffer;
  meta(): ListingMeta;
}

/** What `list --refresh` saw for one record: polled now, or why it could not be. */
export type Refreshed = { polled: true } | { polled: false; why: string };

/**
 * `list`: the records that match, oldest first, read from the vault while the presenter prints
 * them (at 100,000 records, holding every row costs more in GC than reading it). `eachRow` calls
 * `row` for each record; given `runs`, it may hand over a run of rows at once instead, their JSON
 * already joined by commas (copied out whole: `list --all --json`).
 */
export interface TasksListed {
  kind: 'tasks-listed';
  eachRow(row: (r: ListedRow) => void, runs?: (json: Buffer) => void): void;
  /** --all: nothing was left out by phase. */
  all: boolean;
  /** The filters given, as typed (`--status in-doubt`, `--server web`): an empty list names them. */
  filters: string[];
  /** How many records the vault holds in all (asked only when nothing matched). */
  vaultTotal(): number;
  /** --refresh: what each poll of an active record saw, by opId (a summary on stderr, "polled now" in the table). */
  refreshed?: Map<string, Refreshed> | undefined;
  /** The team store: records come from many machines, so the table shows whose each is. */
  showOrigin?: boolean;
}

/** `prune`: how many finished records were dropped (active, lost and in-doubt ones never are). */
export interface Pruned {
  kind: 'pruned';
  removed: number;
}

/** `export`: the sealed bundle, written to `out` or (without --out) the bundle's text for stdout. */
export interface Exported {
  kind: 'exported';
  count: number;
  /** The file written (mode 0600); absent: `bundle` goes to stdout. */
  out?: string | undefined;
  bundle: string;
}

/** `import`: records added, ones already held, and what this machine lacks to use them. */
export interface RecordsImported {
  kind: 'records-imported';
  added: number;
  alreadyPresent: number;
  warnings: string[];
  /** Commands that make the records usable here (add a missing server). */
  next: Hint[];
}

/** May an in-doubt operation be sent again without risking a duplicated effect, and why. */
export type ResubmitVerdict = { safe: true; why: string } | { safe: false; why: string };

/** Bare `recover`: every submission in doubt, with its verdict (exit 10, in doubt, while any is). */
export interface InDoubtList {
  kind: 'in-doubt-list';
  records: Array<{ record: VaultRecord; verdict: ResubmitVerdict }>;
}

/** `recover <op-id>`: one submission in doubt and the safe next step (exit 10, in doubt). */
export interface InDoubtRecord {
  kind: 'in-doubt-record';
  record: VaultRecord;
  verdict: ResubmitVerdict;
}

/** `recover <op-id> --resolve`: what an out-of-band check found is recorded; the record is terminal. */
export interface Resolved {
  kind: 'resolved';
  /** The record as it was before (its phase: what it was resolved from). */
  before: VaultRecord;
  outcome: string;
  note?: string | undefined;
  /** As stored (null when the record could not be read back). */
  resolution: VaultRecord['resolution'] | null;
}

/** `recover --resubmit --force`, and the person said no: nothing sent, still in doubt (exit 10, in doubt). */
export interface ResubmitDeclined {
  kind: 'resubmit-declined';
}

/**
 * A record closed by hand (`recover --resolve`), asked about again (`get`, `watch`, `recover
 * <op>`): the verdict and its note stand, nothing is sent; exit code by the verdict.
 */
export interface ResolvedRecord {
  kind: 'resolved-record';
  record: VaultRecord;
}

export type RecoverOutcome = InDoubtList | InDoubtRecord | Resolved | ResolvedRecord | ResubmitDeclined;

/** One damaged thing `vault check` found, and the safe next step for it. */
export interface VaultFinding {
  problem: string;
  /** The file concerned (record files only). */
  path?: string;
  next: string | Hint;
}

/** `vault check [--repair]`: what was read, what is damaged, and with --repair what was done. */
export interface VaultChecked {
  kind: 'vault-checked';
  /** No vault yet: nothing to check. */
  exists: boolean;
  sound: number;
  findings: VaultFinding[];
  /** --repair: the files moved aside (from → to) and the listing rebuilt. */
  repaired?: { moved: Array<{ from: string; to: string }>; listingRebuilt: boolean };
}

/** `store status`: which store holds the handles, and what it holds (never the database password). */
export interface StoreStatus {
  kind: 'store-status';
  engine: 'files' | 'postgres';
  /** The home directory, or the store URL without its password. */
  where: string;
  reachable: boolean;
  schemaVersion: number | null;
  records: number;
  active: number;
  /** Whose records (team store): origin and count, most first. */
  origins: Array<{ origin: string; records: number }>;
  /** Local records waiting for `store push` (the team store could not take them when written). */
  pushPending: number;
  /** Where the team key comes from (team store): MCP_TASKS_TEAM_KEY, the OS keychain, or nowhere. */
  teamKey: 'env' | 'keychain' | null;
  /** The team store's connection keeper: whether this command went through one, and how long one stays after its last command (0: off). */
  keeper: { used: boolean; keepSeconds: number } | null;
}

/** `store init`: the schema created or brought up to date (idempotent). */
export interface StoreInitialised {
  kind: 'store-initialised';
  where: string;
  created: boolean;
  schemaVersion: number;
}

/** `store keygen`: a new generated team key, printed once and kept nowhere. */
export interface StoreKeyGenerated {
  kind: 'store-key-generated';
  key: string;
}

/** `store key save`: the team key, checked against the store, kept in the OS keychain for it. */
export interface StoreKeySaved {
  kind: 'store-key-saved';
  where: string;
  /** The keychain's name on this system. */
  keychain: string;
  /** MCP_TASKS_TEAM_KEY is set here too, and wins over the saved key. */
  overridden: boolean;
}

/** `store key forget`: the store's team key removed from the OS keychain (or none was there). */
export interface StoreKeyForgotten {
  kind: 'store-key-forgotten';
  where: string;
  keychain: string;
  removed: boolean;
}

/** `store push`: local records copied into the team store (twice adds nothing). */
export interface StorePushed {
  kind: 'store-pushed';
  where: string;
  added: number;
  alreadyPresent: number;
}

export type VaultOutcome = RecordShown | Pruned | Exported | RecordsImported | VaultChecked | StoreStatus | StoreInitialised | StoreKeyGenerated | StoreKeySaved | StoreKeyForgotten | StorePushed;

/** `server login`: signed in; the sign-in as `server show` describes it (never a token). */
export interface SignedIn {
  kind: 'signed-in';
  server: string;
  /** The authorization server (server text). */
  issuer?: string | undefined;
  view: Record<string, unknown>;
}

/** `server logout`: the local sign-in is gone; whether the authorization server revoked its tokens. */
export interface SignedOut {
  kind: 'signed-out';
  server: string;
  /** A sign-in file was there to delete. */
  removed: boolean;
  revoked: boolean;
  /** Why revocation was not confirmed (server text), when it was not. */
  revocationProblem?: string | undefined;
}

/** `list --remote <server>`: the server's own task list (oldest first), each with its vault record when held. */
export interface RemoteTasksListed {
  kind: 'remote-tasks-listed';
  server: string;
  tasks: Array<{ snapshot: TaskSnapshot; record?: VaultRecord | undefined }>;
}

export type ServerOutcome = ServerAdded | ServersListed | ServerShown | ServerRemoved | ServersImported | ServerChecked | ToolsListed | SignedIn | SignedOut | RemoteTasksListed;

export type Outcome = TaskReport | CancelRequested | CancelNotSent | ManyReports
  | NothingToWatch
  | WatchInterrupted | TaskFailure | DirectResult | InputBeforeTask | Detached | InDoubt | AnswerTemplate | VaultOutcome | TasksListed | RecoverOutcome | ServerOutcome;
