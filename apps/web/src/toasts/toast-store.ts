import { createStore } from "../lib/create-store.ts";

export type ToastKind = "success" | "error" | "info" | "loading";

export interface ToastLink {
  href: string;
  label: string;
}

export interface Toast {
  id: string;
  kind: ToastKind;
  title: string;
  description?: string;
  link?: ToastLink;
  /** Longer text (an error stack) shown collapsed under the toast. */
  detail?: string;
  /** A button that copies this text ("Copy full error"). */
  copyText?: string;
  /** Extra line, with a link when there is one (the support line links the configured support URL). */
  help?: { text: string; link?: ToastLink };
  /** Milliseconds until the toast closes itself. */
  durationMs: number;
}

/** Transaction progress toasts stay up to 65 s while loading (spec section 9). */
export const TRANSACTION_TOAST_DURATION_MS = 65_000;
/** Default lifetime of other toasts. */
export const DEFAULT_TOAST_DURATION_MS = 6_000;
/** Error toasts stay longer so the detail can be read and copied. */
export const ERROR_TOAST_DURATION_MS = 15_000;

export const toastStore = createStore<Toast[]>([]);
const timers = new Map<string, ReturnType<typeof setTimeout>>();
let nextId = 0;

function schedule(id: string, durationMs: number): void {
  clearTimeout(timers.get(id));
  timers.set(
    id,
    setTimeout(() => dismissToast(id), durationMs),
  );
}

export type ToastInput = Omit<Toast, "id" | "durationMs"> & { durationMs?: number };

function defaultDuration(kind: ToastKind): number {
  if (kind === "loading") return TRANSACTION_TOAST_DURATION_MS;
  if (kind === "error") return ERROR_TOAST_DURATION_MS;
  return DEFAULT_TOAST_DURATION_MS;
}

/** Shows a toast and returns its id. */
export function showToast(input: ToastInput): string {
  nextId += 1;
  const id = `toast-${nextId}`;
  const toast: Toast = { ...input, id, durationMs: input.durationMs ?? defaultDuration(input.kind) };
  toastStore.set((list) => [...list, toast]);
  schedule(id, toast.durationMs);
  return id;
}

/** Replaces a toast's content (same id, so it updates in place), restarting its timer. */
export function updateToast(id: string, input: ToastInput): void {
  const durationMs = input.durationMs ?? defaultDuration(input.kind);
  let found = false;
  toastStore.set((list) =>
    list.map((t) => {
      if (t.id !== id) return t;
      found = true;
      return { ...input, id, durationMs };
    }),
  );
  if (!found) {
    toastStore.set((list) => [...list, { ...input, id, durationMs }]);
  }
  schedule(id, durationMs);
}

/** Closes a toast. */
export function dismissToast(id: string): void {
  clearTimeout(timers.get(id));
  timers.delete(id);
  toastStore.set((list) => list.filter((t) => t.id !== id));
}

/** Closes every toast (tests, sign-out). */
export function clearToasts(): void {
  for (const timer of timers.values()) clearTimeout(timer);
  timers.clear();
  toastStore.set([]);
}
