// The microphone, captured through an AudioWorklet (recorder-worklet.mjs) into 16 kHz samples.

import {NOTE_RATE, PRE_ROLL_SECONDS, SOUND_THRESHOLD} from './wav.mjs';

/**
 * Starts recording. Resolves once the microphone runs, with {stop, cancel}: stop() resolves with
 * {samples: Int16Array, heard: boolean}; cancel() drops everything. Both release the microphone.
 *
 * @param onLevel receives the input level (RMS, 0 to 1) about 20 times a second
 */
export async function startRecording({onLevel}) {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: {
      channelCount: 1,
      // Speech engines are trained on unprocessed speech, and a gain that follows the room
      // makes the same words a different file: the gateway could not recognise a repeat.
      echoCancellation: false,
      noiseSuppression: false,
      autoGainControl: false,
    },
  });
  let context;
  try {
    context = new AudioContext();
    await context.audioWorklet.addModule('/assets/recorder-worklet.mjs');
  } catch (e) {
    stream.getTracks().forEach((track) => track.stop());
    throw e;
  }
  const source = context.createMediaStreamSource(stream);
  const recorder = new AudioWorkletNode(context, 'note-recorder', {
    numberOfInputs: 1,
    numberOfOutputs: 1,
    outputChannelCount: [1],
    processorOptions: {
      outRate: NOTE_RATE,
      threshold: SOUND_THRESHOLD,
      preRollSeconds: PRE_ROLL_SECONDS,
    },
  });
  // A node that reaches the destination is pulled by the graph; the gain keeps it silent.
  const mute = new GainNode(context, {gain: 0});
  source.connect(recorder).connect(mute).connect(context.destination);
  await context.resume();

  const chunks = [];
  let stopped = null;
  const finished = new Promise((resolve) => {
    stopped = resolve;
  });
  recorder.port.onmessage = (event) => {
    const message = event.data;
    if (message.type === 'level') {
      onLevel(message.rms);
    } else if (message.type === 'pcm') {
      chunks.push(message.pcm);
    } else if (message.type === 'stopped') {
      stopped(message.heard);
    }
  };

  function release() {
    stream.getTracks().forEach((track) => track.stop());
    source.disconnect();
    recorder.disconnect();
    context.close();
  }

  return {
    sampleRate: context.sampleRate,
    async stop() {
      recorder.port.postMessage({type: 'stop'});
      const heard = await finished;
      release();
      const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      const samples = new Int16Array(length);
      let at = 0;
      for (const chunk of chunks) {
        samples.set(chunk, at);
        at += chunk.length;
      }
      return {samples, heard};
    },
    cancel() {
      recorder.port.onmessage = null;
      release();
    },
  };
}
