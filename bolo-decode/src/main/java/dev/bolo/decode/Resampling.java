package dev.bolo.decode;

import static org.bytedeco.ffmpeg.global.avutil.AV_SAMPLE_FMT_FLT;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_compare;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_copy;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_default;
import static org.bytedeco.ffmpeg.global.avutil.av_channel_layout_uninit;
import static org.bytedeco.ffmpeg.global.swresample.swr_alloc_set_opts2;
import static org.bytedeco.ffmpeg.global.swresample.swr_convert;
import static org.bytedeco.ffmpeg.global.swresample.swr_free;
import static org.bytedeco.ffmpeg.global.swresample.swr_get_out_samples;
import static org.bytedeco.ffmpeg.global.swresample.swr_init;

import org.bytedeco.ffmpeg.avutil.AVChannelLayout;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.swresample.SwrContext;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerPointer;
import org.jspecify.annotations.Nullable;

/**
 * Decoded frames down-mixed to mono and resampled to one rate as floats, by FFmpeg's swresample. It
 * is set up from the first frame and again whenever a frame's format, rate or channels change (an
 * AAC stream that switches on SBR, a chained Ogg), flushing what the old set-up still held.
 *
 * <p>Not thread safe; {@link #close()} frees its native memory.
 */
final class Resampling implements AutoCloseable {

  /** FFmpeg's {@code AV_CHANNEL_ORDER_UNSPEC}: channels counted but not named. */
  private static final int UNSPECIFIED_ORDER = 0;

  /** Sample rates a note may have: telephone AMR's 8 kHz down to 1 kHz, studio 384 kHz up. */
  static final int LOWEST_RATE = 1_000;

  static final int HIGHEST_RATE = 384_000;

  /** Channels a note may have: far more than any microphone array records. */
  static final int MOST_CHANNELS = 64;

  /** The most samples one frame may become: far above any codec's frame, far below the heap. */
  private static final int MOST_SAMPLES_PER_FRAME = 1 << 22;

  private final int rate;
  private final AVChannelLayout mono = new AVChannelLayout();
  private final AVChannelLayout inLayout = new AVChannelLayout();
  private @Nullable SwrContext swr;
  private int inFormat = -1;
  private int inRate = -1;

  private FloatPointer out = new FloatPointer(1);
  private int outCapacity = 1;
  private final PointerPointer<FloatPointer> outPlanes = new PointerPointer<>(1);
  private float[] samples = new float[4096];
  private int converted;

  Resampling(int rate) {
    this.rate = rate;
    av_channel_layout_default(mono, 1);
  }

  /** Samples {@link #convert} or {@link #flush} last put at the start of their array. */
  int converted() {
    return converted;
  }

  /** The frame as mono samples: the array's first {@link #converted()}. */
  float[] convert(AVFrame frame) throws UndecodableAudioException {
    converted = 0;
    if (swr == null || changed(frame)) {
      if (swr != null) {
        drain();
      }
      configure(frame);
    }
    SwrContext context = current();
    int bound = swr_get_out_samples(context, frame.nb_samples());
    if (bound < 0 || bound > MOST_SAMPLES_PER_FRAME) {
      throw new UndecodableAudioException("a frame of the audio is too large: " + bound);
    }
    reserve(bound);
    int n = swr_convert(context, outPlanes, outCapacity, frame.extended_data(), frame.nb_samples());
    if (n < 0) {
      throw new UndecodableAudioException(
          "the audio cannot be converted to the gateway's sample rate",
          "swr_convert: " + FfmpegError.describe(n));
    }
    append(n);
    return samples;
  }

  /** What the resampler still holds at the end of the note. */
  float[] flush() {
    converted = 0;
    if (swr != null) {
      drain();
    }
    return samples;
  }

  private void drain() {
    SwrContext context = current();
    while (true) {
      int n = swr_convert(context, outPlanes, outCapacity, (PointerPointer<?>) null, 0);
      if (n <= 0) {
        return;
      }
      append(n);
    }
  }

  private boolean changed(AVFrame frame) {
    return frame.format() != inFormat
        || frame.sample_rate() != inRate
        || av_channel_layout_compare(layoutOf(frame), inLayout) != 0;
  }

  private AVChannelLayout layoutOf(AVFrame frame) {
    AVChannelLayout layout = frame.ch_layout();
    if (layout.order() != UNSPECIFIED_ORDER) {
      return layout;
    }
    // Counted but unnamed channels (a WAV without a mask): mix them as the usual layout of that
    // many, which swresample can build a matrix for.
    AVChannelLayout usual = new AVChannelLayout();
    av_channel_layout_default(usual, layout.nb_channels());
    return usual;
  }

  private void configure(AVFrame frame) throws UndecodableAudioException {
    release();
    av_channel_layout_uninit(inLayout);
    av_channel_layout_copy(inLayout, layoutOf(frame));
    inFormat = frame.format();
    inRate = frame.sample_rate();
    // A header may declare any rate: resampling from half a gigahertz takes seconds of CPU for a
    // few bytes. No recorder writes outside these bounds.
    if (inRate < LOWEST_RATE
        || inRate > HIGHEST_RATE
        || inLayout.nb_channels() <= 0
        || inLayout.nb_channels() > MOST_CHANNELS) {
      throw new UndecodableAudioException(
          "the audio declares "
              + inLayout.nb_channels()
              + " channels at "
              + inRate
              + " Hz; notes have 1 to "
              + MOST_CHANNELS
              + " channels at "
              + LOWEST_RATE
              + " to "
              + HIGHEST_RATE
              + " Hz");
    }
    SwrContext context = new SwrContext(null);
    int set =
        swr_alloc_set_opts2(
            context, mono, AV_SAMPLE_FMT_FLT, rate, inLayout, inFormat, inRate, 0, null);
    if (set < 0 || context.isNull() || swr_init(context) < 0) {
      if (!context.isNull()) {
        swr_free(context);
      }
      throw new UndecodableAudioException(
          "the audio's format cannot be converted ("
              + inLayout.nb_channels()
              + " channels at "
              + inRate
              + " Hz)");
    }
    swr = context;
  }

  private SwrContext current() {
    if (swr == null) {
      throw new IllegalStateException("not configured");
    }
    return swr;
  }

  private void reserve(int count) {
    if (count > outCapacity) {
      out.close();
      outCapacity = Math.max(count, outCapacity * 2);
      out = new FloatPointer(outCapacity);
    }
    outPlanes.put(0, out);
  }

  private void append(int n) {
    if (converted + n > samples.length) {
      samples = java.util.Arrays.copyOf(samples, Math.max(converted + n, samples.length * 2));
    }
    out.position(0).get(samples, converted, n);
    converted += n;
  }

  private void release() {
    if (swr != null) {
      swr_free(swr);
      swr = null;
    }
  }

  @Override
  public void close() {
    release();
    av_channel_layout_uninit(inLayout);
    av_channel_layout_uninit(mono);
    out.close();
    outPlanes.close();
  }
}
