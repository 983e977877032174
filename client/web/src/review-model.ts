// The review of a finished hand (docs/review.md): where it stands (GET
// /api/hands/{id}/review, polled while a worker judges it), asked for over the websocket
// (review_hand), and the decisions it marked, by the event of the hand they were.

import type { HandRecord } from "./replay-model";

export type ReviewLabel = "inaccuracy" | "mistake" | "blunder";

export interface ReviewDecision {
  step: number;
  seat: number;
  kind: string;
  played: string;
  value: number;
  best: string;
  best_value: number;
  loss: number;
  label?: ReviewLabel;
}

export interface ReviewPlayer {
  decisions: number;
  loss: number;
  mean_loss: number;
  accuracy: number;
  luck: number;
}

export interface Review {
  decisions: ReviewDecision[];
  players: ReviewPlayer[];
}

export type ReviewState = "loading" | "none" | "queued" | "running" | "done" | "failed";

export const MARKS: Record<ReviewLabel, string> = { inaccuracy: "?!", mistake: "?", blunder: "??" };

/** How often the page asks how far the review is. */
const POLL_MS = 1000;

export class ReviewModel {
  state: ReviewState = "loading";
  done = 0;
  total = 0;
  review: Review | null = null;
  /** The error code of a refused request. */
  error: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    readonly hand: string,
    private readonly changed: () => void,
  ) {}

  async load(): Promise<void> {
    try {
      const response = await fetch(`/api/hands/${encodeURIComponent(this.hand)}/review`);
      if (!response.ok) throw new Error(String(response.status));
      const body = (await response.json()) as Record<string, unknown>;
      this.read(body);
    } catch {
      if (this.state === "loading") this.state = "failed";
    }
    if (!this.stopped && (this.state === "queued" || this.state === "running")) this.poll();
    this.changed();
  }

  /** Ask for the review (`request` sends review_hand); then follow it. */
  async ask(request: (hand: string) => Promise<Record<string, unknown>>): Promise<void> {
    this.error = null;
    try {
      this.read(await request(this.hand));
    } catch (error) {
      this.error = (error as { code?: string }).code ?? "internal";
    }
    if (this.state === "queued" || this.state === "running") this.poll();
    this.changed();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private poll(): void {
    if (this.timer !== null || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.load();
    }, POLL_MS);
  }

  private read(body: Record<string, unknown>): void {
    const state = body.state;
    if (state === "none" || state === "queued" || state === "running" || state === "done") this.state = state;
    this.done = typeof body.done === "number" ? body.done : 0;
    this.total = typeof body.total === "number" ? body.total : 0;
    const review = body.review as Review | undefined;
    if (review && Array.isArray(review.decisions)) this.review = review;
  }

  /** The decision that was the event at `step` of the record, if it was judged. */
  decisionAt(step: number): ReviewDecision | null {
    return this.review?.decisions.find((decision) => decision.step === step) ?? null;
  }
}

/** The index in `record.events` of each frame's event (frames keep the event itself). */
export function frameSteps(record: HandRecord, events: readonly unknown[]): number[] {
  return events.map((event) => record.events.indexOf(event as HandRecord["events"][number]));
}

/** The next frame after `from` whose move is marked (wrapping round), or null. */
export function nextMarked(model: ReviewModel, steps: readonly number[], from: number): number | null {
  const count = steps.length;
  for (let offset = 1; offset <= count; offset++) {
    const index = (from + offset) % count;
    if (model.decisionAt(steps[index])?.label) return index;
  }
  return null;
}
