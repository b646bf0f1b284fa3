package dev.bolo.server.transcription;

import java.util.Locale;

/** The protocol a resumable upload was created with; its appends speak the same one. */
public enum UploadProtocol {
  /** tus 1.0.0 at {@code /v1/uploads}. */
  TUS,
  /** Resumable Uploads for HTTP (draft-ietf-httpbis-resumable-upload-05) on the POST itself. */
  IETF;

  /** The name the ledger database keeps. */
  String stored() {
    return name().toLowerCase(Locale.ROOT);
  }
}
