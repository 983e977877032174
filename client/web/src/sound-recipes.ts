// The sounds, synthesized with Web Audio (no files): each recipe schedules its nodes at `at`
// (seconds on the context's clock) into `out` and returns how long it lasts.

import type { Cue } from "./cues";

export interface Voice {
  context: BaseAudioContext;
  out: AudioNode;
  /** One second of white noise, made once per context. */
  noise: AudioBuffer;
}

type Recipe = (voice: Voice, at: number) => number;

function envelope(voice: Voice, at: number, peak: number, attack: number, length: number): GainNode {
  const gain = voice.context.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.linearRampToValueAtTime(peak, at + attack);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  gain.connect(voice.out);
  return gain;
}

function tone(voice: Voice, at: number, options: { type: OscillatorType; from: number; to?: number; length: number; peak: number; attack?: number }): void {
  const oscillator = voice.context.createOscillator();
  oscillator.type = options.type;
  oscillator.frequency.value = options.from;
  oscillator.frequency.setValueAtTime(options.from, at);
  if (options.to !== undefined) oscillator.frequency.exponentialRampToValueAtTime(options.to, at + options.length);
  oscillator.connect(envelope(voice, at, options.peak, options.attack ?? 0.005, options.length));
  oscillator.start(at);
  oscillator.stop(at + options.length + 0.02);
}

function noise(voice: Voice, at: number, options: { filter: BiquadFilterType; frequency: number; q: number; length: number; peak: number }): void {
  const source = voice.context.createBufferSource();
  source.buffer = voice.noise;
  const filter = voice.context.createBiquadFilter();
  filter.type = options.filter;
  filter.frequency.value = options.frequency;
  filter.Q.value = options.q;
  source.connect(filter);
  filter.connect(envelope(voice, at, options.peak, 0.002, options.length));
  source.start(at, Math.random() * 0.5, options.length + 0.02);
}

const notes = (voice: Voice, at: number, type: OscillatorType, frequencies: number[], step: number, length: number, peak: number) =>
  frequencies.forEach((frequency, index) => tone(voice, at + index * step, { type, from: frequency, length, peak }));

export const RECIPES: Record<Cue, Recipe> = {
  // a card snapped onto the table: a short band of noise
  card: (voice, at) => {
    noise(voice, at, { filter: "bandpass", frequency: 2600, q: 0.8, length: 0.07, peak: 0.55 });
    return 0.09;
  },
  // two knuckle raps on wood: low thumps falling in pitch, with a click each
  knock: (voice, at) => {
    for (const offset of [0, 0.17]) {
      tone(voice, at + offset, { type: "sine", from: 150, to: 55, length: 0.14, peak: 0.9, attack: 0.002 });
      noise(voice, at + offset, { filter: "lowpass", frequency: 900, q: 0.7, length: 0.04, peak: 0.5 });
    }
    return 0.4;
  },
  // a bright rising arpeggio: C E G C
  gin: (voice, at) => {
    notes(voice, at, "triangle", [523.25, 659.25, 783.99, 1046.5], 0.085, 0.42, 0.32);
    return 0.7;
  },
  // the "oh no" of a knock that backfired: two notes falling
  undercut: (voice, at) => {
    tone(voice, at, { type: "triangle", from: 392, to: 370, length: 0.26, peak: 0.35 });
    tone(voice, at + 0.26, { type: "triangle", from: 311.13, to: 262, length: 0.42, peak: 0.35 });
    return 0.75;
  },
  // a soft two-note chime
  turn: (voice, at) => {
    notes(voice, at, "sine", [659.25, 987.77], 0.12, 0.55, 0.28);
    return 0.7;
  },
  // a short fanfare: G C E, then a held C E G chord
  won: (voice, at) => {
    notes(voice, at, "triangle", [392, 523.25, 659.25], 0.11, 0.3, 0.3);
    for (const frequency of [523.25, 659.25, 783.99, 1046.5]) tone(voice, at + 0.36, { type: "triangle", from: frequency, length: 0.9, peak: 0.2, attack: 0.02 });
    return 1.3;
  },
  // a slow minor fall: G E-flat C
  lost: (voice, at) => {
    notes(voice, at, "sine", [392, 311.13, 261.63], 0.22, 0.5, 0.3);
    return 1.2;
  },
};
