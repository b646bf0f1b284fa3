// Runs on the audio rendering thread: takes the microphone at the context's rate and turns it into
// 16 kHz mono 16-bit samples, which it posts to the page in chunks, with the input level.
//
// Silence before the first sound is not kept (only a short pre-roll before it), so a note starts
// where the person starts speaking: less to upload, less to charge, and the same sound recorded
// twice starts on the same sample, so it makes the same file and the gateway can replay it.

/** Blackman window on [-1, 1]. */
function blackman(t) {
  return 0.42 + 0.5 * Math.cos(Math.PI * t) + 0.08 * Math.cos(2 * Math.PI * t);
}

/**
 * Streaming resampler: a windowed-sinc low-pass at 0.45 of the output rate (below its Nyquist
 * frequency, so nothing folds back into the speech band), evaluated at each output instant. The
 * first output sample sits on the first input sample; input before it counts as silence.
 */
class Resampler {
  constructor(inRate, outRate) {
    this.step = inRate / outRate;
    this.passThrough = inRate === outRate;
    const cutoff = (0.45 * outRate) / inRate;
    this.twoCutoff = 2 * cutoff;
    // Eight output periods on each side: about 60 dB of stop band, 48 taps at 48 kHz.
    this.half = Math.ceil(8 * this.step);
    this.buffer = new Float32Array(8192);
    this.length = 0;
    this.base = 0; // input index of buffer[0]
    this.next = 0; // input position of the next output sample
  }

  weight(distance) {
    const x = this.twoCutoff * distance;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    return this.twoCutoff * sinc * blackman(distance / this.half);
  }

  /** Appends input samples and returns the output samples now complete. */
  push(input) {
    if (this.passThrough) {
      return Float32Array.from(input);
    }
    if (this.length + input.length > this.buffer.length) {
      const grown = new Float32Array(Math.max(this.buffer.length * 2, this.length + input.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(input, this.length);
    this.length += input.length;
    const out = [];
    const end = this.base + this.length;
    while (this.next + this.half < end) {
      const center = this.next;
      const first = Math.max(this.base, Math.ceil(center - this.half));
      const last = Math.floor(center + this.half);
      let sum = 0;
      let weights = 0;
      for (let k = first; k <= last; k++) {
        const w = this.weight(center - k);
        sum += this.buffer[k - this.base] * w;
        weights += w;
      }
      // Normalised, so a constant input stays exactly constant whatever the phase.
      out.push(weights === 0 ? 0 : sum / weights);
      this.next += this.step;
    }
    const drop = Math.floor(this.next - this.half) - this.base;
    if (drop > 0) {
      this.buffer.copyWithin(0, drop, this.length);
      this.length -= drop;
      this.base += drop;
    }
    return Float32Array.from(out);
  }

  /** Completes the last output samples as if silence followed. */
  flush() {
    return this.passThrough ? new Float32Array(0) : this.push(new Float32Array(this.half + 1));
  }
}

/** Float samples in [-1, 1] as 16-bit PCM, clipped. */
function toPcm16(samples) {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    pcm[i] = s < 0 ? Math.round(s * 32768) : Math.round(s * 32767);
  }
  return pcm;
}

class NoteRecorder extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const settings = options.processorOptions;
    this.outRate = settings.outRate;
    this.threshold = settings.threshold;
    this.resampler = new Resampler(sampleRate, this.outRate);
    // The pre-roll: the input just before the first sound, so a soft first consonant is kept.
    // It starts as silence, so the note does not depend on when the microphone started.
    this.preRoll = new Float32Array(Math.round(settings.preRollSeconds * sampleRate));
    this.preRollAt = 0;
    this.heard = false;
    this.pending = [];
    this.pendingLength = 0;
    this.chunkLength = Math.round(this.outRate / 10);
    this.levelSum = 0;
    this.levelCount = 0;
    this.levelEvery = Math.round(sampleRate / 20);
    this.running = true;
    this.port.onmessage = (event) => {
      if (event.data.type === 'stop') {
        this.stop();
      }
    };
  }

  process(inputs) {
    if (!this.running) {
      return false;
    }
    const channels = inputs[0];
    if (channels.length === 0) {
      return true;
    }
    // Mono: the first channel (the page asks the microphone for one channel).
    const input = channels[0];
    this.measure(input);
    if (!this.heard) {
      const loud = input.findIndex((s) => Math.abs(s) >= this.threshold);
      if (loud < 0) {
        this.remember(input);
        return true;
      }
      this.heard = true;
      this.remember(input.subarray(0, loud));
      this.keep(this.resampler.push(this.orderedPreRoll()));
      this.keep(this.resampler.push(input.subarray(loud)));
      return true;
    }
    this.keep(this.resampler.push(input));
    return true;
  }

  remember(samples) {
    for (let i = 0; i < samples.length; i++) {
      this.preRoll[this.preRollAt] = samples[i];
      this.preRollAt = (this.preRollAt + 1) % this.preRoll.length;
    }
  }

  orderedPreRoll() {
    const ordered = new Float32Array(this.preRoll.length);
    ordered.set(this.preRoll.subarray(this.preRollAt));
    ordered.set(this.preRoll.subarray(0, this.preRollAt), this.preRoll.length - this.preRollAt);
    return ordered;
  }

  keep(samples) {
    if (samples.length === 0) {
      return;
    }
    this.pending.push(samples);
    this.pendingLength += samples.length;
    if (this.pendingLength >= this.chunkLength) {
      this.post();
    }
  }

  post() {
    if (this.pendingLength === 0) {
      return;
    }
    const joined = new Float32Array(this.pendingLength);
    let at = 0;
    for (const part of this.pending) {
      joined.set(part, at);
      at += part.length;
    }
    this.pending = [];
    this.pendingLength = 0;
    const pcm = toPcm16(joined);
    this.port.postMessage({type: 'pcm', pcm}, [pcm.buffer]);
  }

  measure(input) {
    for (let i = 0; i < input.length; i++) {
      this.levelSum += input[i] * input[i];
    }
    this.levelCount += input.length;
    if (this.levelCount >= this.levelEvery) {
      this.port.postMessage({type: 'level', rms: Math.sqrt(this.levelSum / this.levelCount)});
      this.levelSum = 0;
      this.levelCount = 0;
    }
  }

  stop() {
    if (this.heard) {
      this.keep(this.resampler.flush());
    }
    this.post();
    this.running = false;
    this.port.postMessage({type: 'stopped', heard: this.heard});
  }
}

registerProcessor('note-recorder', NoteRecorder);
