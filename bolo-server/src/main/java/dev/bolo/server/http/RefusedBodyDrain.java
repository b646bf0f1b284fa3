package dev.bolo.server.http;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.TunnelSupport;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an HTTP/1.1 connection becomes once a request's answer went out before its body was all
 * read: it reads and drops what the client is still sending, then closes, so that a client which
 * reads nothing until its body is sent (Node's fetch, the OpenAI Node SDK) sends it all and then
 * reads its answer. Jetty alone closes such a connection at once, and the client's next write meets
 * a reset that takes the unread answer with it.
 *
 * <p>The request ends with its answer as before; only the connection lingers, with its output shut
 * (the client sees the answer end), holding no thread, and a pooled buffer only while it reads.
 * {@link ClosingConnections} bounds it: {@link ClosingConnections#MAX_DISCARD_BYTES} at most, at no
 * less than the minimum body rate once a window has passed, the idle timeout, and {@link
 * ClosingConnections#MAX_DRAINS} at once (beyond them a refused connection closes at once, as Jetty
 * closes it). It is taken on through Jetty's connection upgrade, the way WebSocket takes a
 * connection over. Thread safe: the counter is atomic, and the sweep closes the end point, which
 * Jetty makes safe from any thread.
 */
final class RefusedBodyDrain extends AbstractConnection implements Connection.UpgradeTo {

  private static final Logger log = LoggerFactory.getLogger(RefusedBodyDrain.class);
  private static final int BUFFER_BYTES = 16 * 1024;

  private final ClosingConnections closing;
  private final ByteBufferPool buffers;
  private final long sinceNanos;
  private final AtomicLong dropped = new AtomicLong();

  private RefusedBodyDrain(
      EndPoint endPoint,
      Executor executor,
      ByteBufferPool buffers,
      ClosingConnections closing,
      long sinceNanos) {
    super(endPoint, executor);
    this.buffers = buffers;
    this.closing = closing;
    this.sinceNanos = sinceNanos;
  }

  /**
   * Arranges for the connection of {@code req}, whose answer is written and whose body is not all
   * read, to read and drop the rest after the answer instead of being closed under the client; as
   * {@link #afterAnswer(Request)}.
   */
  static void afterAnswer(HttpServletRequest req) {
    ServletContextRequest request = ServletContextRequest.getServletContextRequest(req);
    if (request != null) {
      afterAnswer(request);
    }
  }

  /**
   * Arranges for the connection of {@code request}, whose answer is not yet complete and whose body
   * is not all read, to read and drop the rest after the answer instead of being closed under the
   * client; the answer's caller says {@code Connection: close} when this returns true. Does nothing
   * for a request without a body, one not over HTTP/1, on a server without {@link
   * ClosingConnections}, when {@link ClosingConnections#MAX_DRAINS} are draining already, or when
   * the client has gone; a body that has all arrived by the end is consumed as Jetty does.
   *
   * @return whether the connection will drain
   */
  static boolean afterAnswer(Request request) {
    if (request.getLength() <= 0 && !request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING)) {
      return false;
    }
    if (!(request.getConnectionMetaData().getConnection() instanceof HttpConnection http)) {
      return false;
    }
    ClosingConnections closing =
        request
            .getConnectionMetaData()
            .getConnector()
            .getServer()
            .getBean(ClosingConnections.class);
    if (closing == null || !closing.admitsAnother()) {
      return false;
    }
    Request channel = Request.unWrap(request);
    try {
      request.addHttpStreamWrapper(stream -> new Unconsumed(stream, channel));
    } catch (IllegalStateException e) {
      // The client reset the connection meanwhile: no stream is left to drain.
      return false;
    }
    channel.setAttribute(
        HttpStream.UPGRADE_CONNECTION_ATTRIBUTE,
        new RefusedBodyDrain(
            http.getEndPoint(),
            http.getConnector().getExecutor(),
            http.getConnector().getByteBufferPool(),
            closing,
            closing.nanoTime()));
    return true;
  }

  /** Bytes dropped so far, for the sweep. */
  long dropped() {
    return dropped.get();
  }

  /** When the drain began, on {@link ClosingConnections#nanoTime()}. */
  long sinceNanos() {
    return sinceNanos;
  }

  @Override
  public void onUpgradeTo(ByteBuffer prefilled) {
    // What Jetty had read past the answer: dropped as the rest will be.
    dropped.addAndGet(prefilled.remaining());
  }

  @Override
  public void onOpen() {
    super.onOpen();
    if (!getEndPoint().isOpen()) {
      // Closed while it was handed over (a stop, an idle timeout): nothing to drain.
      return;
    }
    closing.draining(this);
    // The answer is all written: the client sees it end, and may stop sending.
    getEndPoint().shutdownOutput();
    fillInterested();
  }

  @Override
  public void onFillable() {
    RetainableByteBuffer pooled = buffers.acquire(BUFFER_BYTES, false);
    ByteBuffer into = pooled.getByteBuffer();
    try {
      while (true) {
        into.clear().limit(0);
        int read = getEndPoint().fill(into);
        if (read < 0) {
          getEndPoint().close();
          return;
        }
        if (read == 0) {
          fillInterested();
          return;
        }
        if (dropped.addAndGet(read) > ClosingConnections.MAX_DISCARD_BYTES) {
          getEndPoint().close();
          return;
        }
      }
    } catch (IOException e) {
      log.debug("a refused body's connection failed: {}", e.toString());
      getEndPoint().close(e);
    } finally {
      pooled.release();
    }
  }

  @Override
  public void onClose(@Nullable Throwable cause) {
    closing.drained(this);
    super.onClose(cause);
  }

  /**
   * The request's stream with its unread body counted as consumed, so that Jetty completes the
   * request and hands the connection to the drain instead of failing it; a body that has all
   * arrived is consumed as usual and the connection closes as Jetty closes it.
   */
  private static final class Unconsumed implements HttpStream {
    private final HttpStream stream;
    private final Request channel;

    Unconsumed(HttpStream stream, Request channel) {
      this.stream = stream;
      this.channel = channel;
    }

    @Override
    public @Nullable Throwable consumeAvailable() {
      Throwable unconsumed = stream.consumeAvailable();
      if (unconsumed == null) {
        channel.removeAttribute(UPGRADE_CONNECTION_ATTRIBUTE);
      }
      // Only a body still arriving is the drain's; a broken one (a bad chunk, an early end) fails
      // the connection as Jetty fails it.
      return unconsumed == CONTENT_NOT_CONSUMED ? null : unconsumed;
    }

    @Override
    public String getId() {
      return stream.getId();
    }

    @Override
    public Content.@Nullable Chunk read() {
      return stream.read();
    }

    @Override
    public void demand() {
      stream.demand();
    }

    @Override
    public void prepareResponse(HttpFields.Mutable headers) {
      stream.prepareResponse(headers);
    }

    @Override
    public void send(
        MetaData.Request request,
        MetaData.@Nullable Response response,
        boolean last,
        @Nullable ByteBuffer content,
        Callback callback) {
      stream.send(request, response, last, content, callback);
    }

    @Override
    public @Nullable Runnable cancelSend(Throwable cause, Callback appCallback) {
      return stream.cancelSend(cause, appCallback);
    }

    @Override
    public long getIdleTimeout() {
      return stream.getIdleTimeout();
    }

    @Override
    public void setIdleTimeout(long idleTimeoutMs) {
      stream.setIdleTimeout(idleTimeoutMs);
    }

    @Override
    public boolean isCommitted() {
      return stream.isCommitted();
    }

    @Override
    public @Nullable TunnelSupport getTunnelSupport() {
      return stream.getTunnelSupport();
    }

    @Override
    public void succeeded() {
      stream.succeeded();
    }

    @Override
    public void failed(Throwable x) {
      stream.failed(x);
    }

    @Override
    public InvocationType getInvocationType() {
      return stream.getInvocationType();
    }
  }
}
