package dev.bolo.client;

import java.io.IOException;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;

/**
 * A request body marked one-shot. OkHttp's {@code RetryAndFollowUpInterceptor} sends a request
 * again by itself after a 503 with {@code Retry-After: 0}, a 408, a 421, a redirect or an
 * authentication challenge; it never does so for a one-shot body (OkHttp 4.12 and 5.x check this
 * before every follow-up). Every resend is then the policy's, with its pause and events.
 */
final class OneShotBody extends RequestBody {
  private final RequestBody delegate;

  OneShotBody(RequestBody delegate) {
    this.delegate = delegate;
  }

  @Override
  public @Nullable MediaType contentType() {
    return delegate.contentType();
  }

  @Override
  public long contentLength() throws IOException {
    return delegate.contentLength();
  }

  @Override
  public boolean isOneShot() {
    return true;
  }

  @Override
  public void writeTo(BufferedSink sink) throws IOException {
    delegate.writeTo(sink);
  }
}
