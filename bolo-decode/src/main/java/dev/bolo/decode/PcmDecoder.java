package dev.bolo.decode;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_get_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_to_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_frame;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_packet;
import static org.bytedeco.ffmpeg.global.avformat.av_find_best_stream;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.bytedeco.ffmpeg.global.avformat.avio_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avio_context_free;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_AUDIO;
import static org.bytedeco.ffmpeg.global.avutil.AV_LOG_QUIET;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_free;
import static org.bytedeco.ffmpeg.global.avutil.av_dict_set;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_free;
import static org.bytedeco.ffmpeg.global.avutil.av_log_set_level;
import static org.bytedeco.ffmpeg.global.avutil.av_malloc;

import dev.bolo.audio.SeekableSource;
import java.io.IOException;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.javacpp.BytePointer;
import org.jspecify.annotations.Nullable;

/**
 * A note in any container a phone or browser records (MP4/M4A/3GP with AAC or AMR, WebM and Ogg
 * with Opus or Vorbis, MP3, FLAC, ADTS AAC, AMR, WAV of any rate, depth and channel count), decoded
 * by FFmpeg's libraries a packet at a time into mono float samples at one rate. The whole note is
 * never held: at most one decoded frame waits between reads.
 *
 * <p>Only audio demuxers are allowed ({@link #DEMUXERS}): a note cannot make FFmpeg open playlists,
 * other files or the network. Isolated damaged packets are skipped, as FFmpeg's own command line
 * skips them; a note with no audio stream, no decoder, or more than {@link #DAMAGED_IN_A_ROW}
 * damaged packets in a row is {@link UndecodableAudioException}.
 *
 * <p>Not thread safe: one thread reads a decoder; {@link #close()} frees its native memory.
 */
public final class PcmDecoder implements MonoSamples, AutoCloseable {

  /** FFmpeg's demuxers for the containers phones and browsers record; nothing that opens URLs. */
  static final String DEMUXERS =
      "mov,mp4,m4a,3gp,matroska,webm,ogg,mp3,flac,aac,amr,amrnb,amrwb,wav";

  /** Bytes FFmpeg reads from the note at a time. */
  private static final int IO_BUFFER_BYTES = 64 * 1024;

  /** Damaged packets in a row after which the note is taken as damaged beyond repair. */
  static final int DAMAGED_IN_A_ROW = 32;

  static {
    // FFmpeg writes every damaged packet of a hostile note to stderr; a note's damage is answered
    // to its client instead.
    av_log_set_level(AV_LOG_QUIET);
  }

  private final NoteInput input;
  private final int sampleRate;
  private @Nullable AVFormatContext format;
  private @Nullable AVIOContext io;
  private @Nullable AVCodecContext codec;
  private final AVPacket packet;
  private final AVFrame frame;
  private final Resampling resampling;
  private final int stream;
  private final String codecName;
  private final long durationMicros;

  private float[] pending = new float[0];
  private int pendingAt;
  private int pendingEnd;
  private boolean demuxed;
  private boolean drained;
  private int damagedInARow;
  private long samplesRead;

  private PcmDecoder(NoteInput input, int sampleRate, Opened opened) {
    this.input = input;
    this.sampleRate = sampleRate;
    this.format = opened.format;
    this.io = opened.io;
    this.codec = opened.codec;
    this.stream = opened.stream;
    this.codecName = opened.codecName;
    this.durationMicros = opened.format.duration();
    this.packet = av_packet_alloc();
    this.frame = av_frame_alloc();
    this.resampling = new Resampling(sampleRate);
  }

  /**
   * Opens a note for decoding to mono at {@code sampleRate}.
   *
   * @throws UndecodableAudioException when the bytes are not audio FFmpeg can decode
   * @throws IOException when the bytes cannot be read
   */
  public static PcmDecoder open(SeekableSource source, int sampleRate) throws IOException {
    if (sampleRate < 1000 || sampleRate > 192_000) {
      throw new IllegalArgumentException("sampleRate must be 1000 to 192000: " + sampleRate);
    }
    NoteInput input = new NoteInput(source);
    try {
      return new PcmDecoder(input, sampleRate, Opened.open(input));
    } catch (IOException | RuntimeException e) {
      input.close();
      throw e;
    }
  }

  @Override
  public int sampleRate() {
    return sampleRate;
  }

  /** The codec's name as FFmpeg knows it ({@code aac}, {@code opus}, {@code amrnb} …). */
  public String codecName() {
    return codecName;
  }

  /** How long the container says the note plays, in milliseconds, or -1 when it does not say. */
  public long declaredMillis() {
    return durationMicros <= 0 ? -1 : durationMicros / 1000;
  }

  /** Samples handed out so far. */
  public long samplesRead() {
    return samplesRead;
  }

  @Override
  public int read(float[] into, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    while (pendingAt == pendingEnd) {
      if (drained) {
        return -1;
      }
      decodeMore();
    }
    int n = Math.min(length, pendingEnd - pendingAt);
    System.arraycopy(pending, pendingAt, into, offset, n);
    pendingAt += n;
    samplesRead += n;
    return n;
  }

  /** Decodes until some samples wait in {@link #pending} or the note has ended. */
  private void decodeMore() throws IOException {
    AVCodecContext context = opened(codec);
    // Frames the decoder already holds come first.
    int received = avcodec_receive_frame(context, frame);
    if (received == 0) {
      take(resampling.convert(frame));
      return;
    }
    if (received == AVERROR_EOF) {
      take(resampling.flush());
      drained = true;
      return;
    }
    if (demuxed) {
      // The decoder was flushed but answered neither a frame nor its end: nothing more comes.
      take(resampling.flush());
      drained = true;
      return;
    }
    int read = av_read_frame(opened(format), packet);
    try {
      if (read < 0) {
        IOException failure = input.failure();
        if (failure != null) {
          throw failure;
        }
        // The end of the note, or damage the demuxer cannot get past: either way no more packets.
        demuxed = true;
        avcodec_send_packet(context, null);
        return;
      }
      if (packet.stream_index() != stream) {
        return;
      }
      if (avcodec_send_packet(context, packet) < 0) {
        if (++damagedInARow > DAMAGED_IN_A_ROW) {
          throw new UndecodableAudioException(
              "the " + codecName + " audio is damaged: " + damagedInARow + " packets in a row");
        }
      } else {
        damagedInARow = 0;
      }
    } finally {
      av_packet_unref(packet);
    }
  }

  private void take(float[] samples) {
    pending = samples;
    pendingAt = 0;
    pendingEnd = resampling.converted();
  }

  private static <T> T opened(@Nullable T part) {
    if (part == null) {
      throw new IllegalStateException("the decoder is closed");
    }
    return part;
  }

  @Override
  public void close() {
    resampling.close();
    av_frame_free(frame);
    av_packet_free(packet);
    if (codec != null) {
      avcodec_free_context(codec);
      codec = null;
    }
    Opened.release(format, io);
    format = null;
    io = null;
    input.close();
  }

  /** The demuxer and decoder of a note, opened. */
  private record Opened(
      AVFormatContext format, AVIOContext io, AVCodecContext codec, int stream, String codecName) {

    static Opened open(NoteInput input) throws IOException {
      BytePointer buffer = new BytePointer(av_malloc(IO_BUFFER_BYTES)).capacity(IO_BUFFER_BYTES);
      AVIOContext io =
          avio_alloc_context(
              buffer, IO_BUFFER_BYTES, 0, input.opaque(), NoteInput.READ, null, NoteInput.SEEK);
      AVFormatContext format = avformat_alloc_context();
      format.pb(io);
      AVDictionary options = new AVDictionary(null);
      av_dict_set(options, "format_whitelist", DEMUXERS, 0);
      int opened = avformat_open_input(format, (String) null, null, options);
      av_dict_free(options);
      if (opened < 0) {
        // avformat_open_input frees the context it was given when it fails; the I/O is ours.
        release(null, io);
        IOException failure = input.failure();
        throw failure != null
            ? failure
            : new UndecodableAudioException(
                "the note cannot be opened as audio: its container is damaged, cut short or not"
                    + " one the gateway reads",
                "avformat_open_input: " + FfmpegError.describe(opened));
      }
      try {
        return withDecoder(format, io);
      } catch (IOException | RuntimeException e) {
        release(format, io);
        throw e;
      }
    }

    private static Opened withDecoder(AVFormatContext format, AVIOContext io) throws IOException {
      int info = avformat_find_stream_info(format, (AVDictionary) null);
      if (info < 0) {
        throw new UndecodableAudioException(
            "the note's streams cannot be read: its container is damaged or cut short",
            "avformat_find_stream_info: " + FfmpegError.describe(info));
      }
      int stream = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, (AVCodec) null, 0);
      if (stream < 0) {
        throw new UndecodableAudioException("the note holds no audio stream");
      }
      AVCodecParameters parameters = format.streams(stream).codecpar();
      // A name from FFmpeg's table of codecs ("aac", "opus"), read to its NUL: an identifier the
      // sentences below may name, never free text.
      String name = FfmpegError.printable(avcodec_get_name(parameters.codec_id()).getString());
      AVCodec decoder = avcodec_find_decoder(parameters.codec_id());
      if (decoder == null) {
        throw new UndecodableAudioException("no decoder for the note's " + name + " audio");
      }
      AVCodecContext codec = avcodec_alloc_context3(decoder);
      if (avcodec_parameters_to_context(codec, parameters) < 0
          || avcodec_open2(codec, decoder, (AVDictionary) null) < 0) {
        avcodec_free_context(codec);
        throw new UndecodableAudioException("the note's " + name + " audio cannot be decoded");
      }
      return new Opened(format, io, codec, stream, name);
    }

    static void release(@Nullable AVFormatContext format, @Nullable AVIOContext io) {
      if (format != null) {
        avformat_close_input(format);
      }
      if (io != null) {
        // FFmpeg may have replaced the buffer it was given; free the one it holds now.
        av_free(io.buffer());
        avio_context_free(io);
      }
    }
  }
}
