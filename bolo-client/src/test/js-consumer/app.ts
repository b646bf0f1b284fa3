// What an app writes against the package: each line must type-check against the packed types.
import {BoloClient, BoloError, STANDARD_POLICY, type Transcript, type Progress} from 'bolo-client';

const bolo = new BoloClient({
  baseUrl: 'http://127.0.0.1:8080',
  token: 'device-token',
  policy: {maxAttempts: 3, pausesMs: [1000, 3000]},
  timeouts: {baseMs: 20000},
  resumableThresholdBytes: 512 * 1024,
});

export async function dictate(recording: Blob | ArrayBuffer | Uint8Array | string): Promise<string> {
  const controller = new AbortController();
  try {
    const transcript: Transcript = await bolo.transcribe(recording, {
      language: 'en',
      format: 'json',
      signal: controller.signal,
      onProgress: (progress: Progress) => {
        const phase: 'uploading' | 'transcribing' = progress.phase;
        void phase;
      },
      onAttempt: ({attempt, requestId, reason, pausedMs}) => {
        void [attempt, requestId, reason, pausedMs];
      },
    });
    const deduplicated: boolean = transcript.deduplicated;
    const length: number | null = transcript.durationMs;
    void [deduplicated, length];
    return transcript.text;
  } catch (e) {
    if (e instanceof BoloError) {
      const code: string = e.code;
      const status: number | null = e.status;
      const retryable: boolean = e.retryable;
      const requestId: string | null = e.requestId;
      return `${code} ${status} ${retryable} ${requestId} ${STANDARD_POLICY.maxAttempts}`;
    }
    throw e;
  }
}
