// What an app writes against the package: each line must type-check against the packed types.
import {
  BoloClient,
  BoloError,
  STANDARD_POLICY,
  WebhookVerificationError,
  adviceFor,
  reasonOf,
  verifyWebhook,
  type Job,
  type Model,
  type Progress,
  type Transcript,
  type WebhookEvent,
} from 'bolo-client';

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
        const phase: 'looking-up' | 'uploading' | 'transcribing' = progress.phase;
        const resumed: boolean | undefined = progress.resumed;
        void [phase, resumed];
      },
      onAttempt: ({attempt, requestId, reason, pausedMs}) => {
        void [attempt, requestId, reason, pausedMs];
      },
      onPause: ({attempt, waitMs, reason}) => {
        const because: string = reasonOf(reason);
        void [attempt, waitMs, because];
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
      const advice: string = e.reason ? adviceFor(e.reason) : e.message;
      void advice;
      return `${code} ${status} ${retryable} ${requestId} ${STANDARD_POLICY.maxAttempts}`;
    }
    throw e;
  }
}

export async function models(): Promise<string[]> {
  const listed: Model[] = await bolo.models();
  return listed.map((model) => `${model.id} ${model.languages?.join(',') ?? 'any'}`);
}

export async function handOver(recording: Blob): Promise<Job> {
  const job: Job = await bolo.submitJob(recording, {
    webhookUrl: 'https://example.com/bolo',
    metadata: {order: 'A-17'},
    idempotencyKey: 'order-A-17',
    language: 'en',
  });
  const now: Job = await bolo.job(job.id);
  if (now.status === 'queued') {
    return bolo.cancelJob(job.id);
  }
  const page = await bolo.jobs({status: 'succeeded', limit: 10});
  void page.hasMore;
  return page.jobs[0] ?? now;
}

export async function receive(headers: Headers, body: string, secret: string): Promise<string> {
  try {
    const event: WebhookEvent = await verifyWebhook(headers, body, secret);
    return event.job.result?.text ?? event.job.error?.message ?? event.type;
  } catch (e) {
    if (e instanceof WebhookVerificationError) {
      return 'forged: ' + e.message;
    }
    throw e;
  }
}
