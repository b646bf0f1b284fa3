package dev.bolo.decode;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_FLAC;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_rescale_ts;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_encoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_from_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_frame;
import static org.bytedeco.ffmpeg.global.avformat.AVIO_FLAG_WRITE;
import static org.bytedeco.ffmpeg.global.avformat.av_interleaved_write_frame;
import static org.bytedeco.ffmpeg.global.avformat.av_write_trailer;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_output_context2;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_new_stream;
import static org.bytedeco.ffmpeg.global.avformat.avformat_write_header;
import static org.bytedeco.ffmpeg.global.avformat.avio_closep;
import static org.bytedeco.ffmpeg.global.avformat.avio_open;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EAGAIN;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AV_SAMPLE_FMT_S16;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_copy;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_default;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_get_buffer;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_make_q;

import java.io.IOException;
import java.nio.file.Path;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.AVStream;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.javacpp.ShortPointer;
import org.jspecify.annotations.Nullable;

/**
 * Writes mono 16-bit samples to a FLAC file with FFmpeg's own FLAC encoder and muxer: lossless, and
 * about half a WAV's size for speech. Never larger than the samples as WAV by more than its frame
 * headers (under 1 %). FFmpeg writes the file itself, by path.
 *
 * <p>Not thread safe: one thread writes; {@link #close()} frees its native memory.
 */
public final class FlacWriter implements AutoCloseable {

  /** Samples per FLAC frame when the encoder leaves it open. */
  private static final int FRAME_SAMPLES = 4608;

  private final int sampleRate;
  private @Nullable AVFormatContext format;
  private @Nullable AVCodecContext codec;
  private final AVStream stream;
  private final AVFrame frame;
  private final AVPacket packet;
  private final int frameSamples;
  private final short[] pending;
  private int pendingCount;
  private long written;
  private boolean closed;

  private FlacWriter(
      int sampleRate, AVFormatContext format, AVCodecContext codec, AVStream stream) {
    this.sampleRate = sampleRate;
    this.format = format;
    this.codec = codec;
    this.stream = stream;
    this.frame = av_frame_alloc();
    this.packet = av_packet_alloc();
    this.frameSamples = codec.frame_size() > 0 ? codec.frame_size() : FRAME_SAMPLES;
    this.pending = new short[frameSamples];
  }

  /**
   * A new FLAC file at {@code file} for mono samples at {@code sampleRate}.
   *
   * @throws IOException when FFmpeg cannot make the file or the encoder
   */
  public static FlacWriter create(Path file, int sampleRate) throws IOException {
    AVFormatContext format = new AVFormatContext(null);
    check(avformat_alloc_output_context2(format, null, "flac", file.toString()), "a FLAC muxer");
    AVCodecContext codec = null;
    try {
      AVCodec encoder = avcodec_find_encoder(AV_CODEC_ID_FLAC);
      if (encoder == null || encoder.isNull()) {
        throw new IOException("FFmpeg has no FLAC encoder");
      }
      AVStream stream = avformat_new_stream(format, null);
      codec = avcodec_alloc_context3(encoder);
      codec.sample_fmt(AV_SAMPLE_FMT_S16);
      codec.sample_rate(sampleRate);
      av_channel_layout_default(codec.ch_layout(), 1);
      codec.time_base(av_make_q(1, sampleRate));
      check(avcodec_open2(codec, encoder, (AVDictionary) null), "the FLAC encoder");
      check(avcodec_parameters_from_context(stream.codecpar(), codec), "the stream");
      stream.time_base(av_make_q(1, sampleRate));
      AVIOContext io = new AVIOContext(null);
      check(avio_open(io, file.toString(), AVIO_FLAG_WRITE), "the FLAC file");
      format.pb(io);
      check(avformat_write_header(format, (AVDictionary) null), "the FLAC header");
      return new FlacWriter(sampleRate, format, codec, stream);
    } catch (IOException | RuntimeException e) {
      free(format, codec);
      throw e;
    }
  }

  /** Appends the first {@code count} of {@code samples}. */
  public void write(short[] samples, int count) throws IOException {
    int from = 0;
    while (from < count) {
      int n = Math.min(count - from, frameSamples - pendingCount);
      System.arraycopy(samples, from, pending, pendingCount, n);
      pendingCount += n;
      from += n;
      if (pendingCount == frameSamples) {
        encodePending();
      }
    }
  }

  /** Encodes what is left and ends the file; nothing may be written after. */
  public void finish() throws IOException {
    AVCodecContext open = opened();
    if (pendingCount > 0) {
      encodePending();
    }
    check(avcodec_send_frame(open, null), "the last FLAC frame");
    drain(open);
    AVFormatContext muxer = java.util.Objects.requireNonNull(format);
    check(av_write_trailer(muxer), "the FLAC file's end");
    close();
  }

  private void encodePending() throws IOException {
    AVCodecContext open = opened();
    frame.nb_samples(pendingCount);
    frame.format(AV_SAMPLE_FMT_S16);
    frame.sample_rate(sampleRate);
    check(av_channel_layout_copy(frame.ch_layout(), open.ch_layout()), "a FLAC frame's layout");
    check(av_frame_get_buffer(frame, 0), "a FLAC frame");
    new ShortPointer(frame.data(0)).put(pending, 0, pendingCount);
    frame.pts(written);
    written += pendingCount;
    pendingCount = 0;
    int sent = avcodec_send_frame(open, frame);
    av_frame_unref(frame);
    check(sent, "a FLAC frame");
    drain(open);
  }

  private void drain(AVCodecContext open) throws IOException {
    AVFormatContext muxer = java.util.Objects.requireNonNull(format);
    while (true) {
      int received = avcodec_receive_packet(open, packet);
      if (received == AVERROR_EAGAIN() || received == AVERROR_EOF) {
        return;
      }
      check(received, "a FLAC packet");
      av_packet_rescale_ts(packet, open.time_base(), stream.time_base());
      packet.stream_index(stream.index());
      check(av_interleaved_write_frame(muxer, packet), "the FLAC file");
    }
  }

  private AVCodecContext opened() {
    if (codec == null) {
      throw new IllegalStateException("the FLAC file is already finished");
    }
    return codec;
  }

  private static void check(int result, String what) throws IOException {
    if (result < 0) {
      throw new IOException("FFmpeg could not write " + what + ": error " + result);
    }
  }

  private static void free(@Nullable AVFormatContext format, @Nullable AVCodecContext codec) {
    if (codec != null) {
      avcodec_free_context(codec);
    }
    if (format != null) {
      if (format.pb() != null && !format.pb().isNull()) {
        avio_closep(format.pb());
      }
      avformat_free_context(format);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    free(format, codec);
    format = null;
    codec = null;
    av_frame_free(frame);
    av_packet_free(packet);
  }
}
