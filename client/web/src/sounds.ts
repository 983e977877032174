// The page's sound: one AudioContext, made only once the player has turned sound on (browsers
// start audio only after a gesture on the page, and a page that never plays makes none).

import type { Cue } from "./cues";
import { RECIPES, type Voice } from "./sound-recipes";

type AudioContextClass = new () => AudioContext;

const VOLUME = 0.6;
const GAP = 0.04;

function browserAudio(): AudioContextClass | null {
  const scope = window as unknown as { AudioContext?: AudioContextClass; webkitAudioContext?: AudioContextClass };
  return scope.AudioContext ?? scope.webkitAudioContext ?? null;
}

function whiteNoise(context: BaseAudioContext): AudioBuffer {
  const buffer = context.createBuffer(1, context.sampleRate, context.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) data[i] = Math.random() * 2 - 1;
  return buffer;
}

export class SoundBoard {
  private readonly audio: AudioContextClass | null;
  private voice: Voice | null = null;

  constructor(audio: AudioContextClass | null = browserAudio()) {
    this.audio = audio;
  }

  get supported(): boolean {
    return this.audio !== null;
  }

  /** From the player's gesture that turns sound on: make (or wake) the context. */
  unlock(): void {
    const voice = this.voice ?? this.open();
    if (voice && (voice.context as AudioContext).state === "suspended") void (voice.context as AudioContext).resume();
  }

  /** Sound turned off: let the audio device rest. */
  rest(): void {
    const context = this.voice?.context as AudioContext | undefined;
    if (context?.state === "running") void context.suspend();
  }

  /** Play cues one after the other. Before any gesture on the page (sound on, remembered
   * from an earlier visit, and the page just loaded) there is nothing a browser would play. */
  play(cues: readonly Cue[]): void {
    if (cues.length === 0) return;
    if (!this.voice && navigator.userActivation?.hasBeenActive === false) return;
    const voice = this.voice ?? this.open();
    if (!voice) return;
    const context = voice.context as AudioContext;
    if (context.state === "suspended") void context.resume();
    let at = context.currentTime + 0.02;
    for (const cue of cues) at += RECIPES[cue](voice, at) + GAP;
  }

  private open(): Voice | null {
    if (!this.audio) return null;
    const context = new this.audio();
    const out = context.createGain();
    out.gain.value = VOLUME;
    out.connect(context.destination);
    this.voice = { context, out, noise: whiteNoise(context) };
    return this.voice;
  }
}
