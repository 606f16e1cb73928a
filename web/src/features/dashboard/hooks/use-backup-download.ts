// Download with a progress toast (spec 8): the encrypted file is fetched through the API client in
// byte ranges, so progress is known as it arrives, then saved under the spec's file name.
import { useCallback, useState } from "react";
import { toast } from "../../../components/ui/toast-store";
import { readBytes, saveFile } from "../../../lib/browser-download";
import { type Backup, downloadBackupRangeRequest } from "../api/dashboard-api";
import { backupDownloadName, formatMegabytes } from "../utils/dashboard-format";

export const DOWNLOAD_CHUNK_BYTES = 8 * 1024 * 1024;

export function useBackupDownload() {
  const [downloadingId, setDownloadingId] = useState<string | null>(null);

  const download = useCallback(async (backup: Backup) => {
    setDownloadingId(backup.id);
    toast({ title: "Downloading...", description: "0%", durationMs: 0 });
    try {
      const parts: ArrayBuffer[] = [];
      let received = 0;
      let total = backup.size;
      let shownPercent = 0;
      do {
        const end = Math.min(received + DOWNLOAD_CHUNK_BYTES, total) - 1;
        const { data, error, response } = await downloadBackupRangeRequest(backup.id, received, Math.max(received, end));
        if (error) throw new Error("download failed");
        // Content-Range names the file's full length: the true total, whatever the list said.
        const length = Number(response?.headers.get("content-range")?.split("/")[1]);
        if (Number.isFinite(length) && length > 0) total = length;
        const bytes = await readBytes(data);
        if (bytes.byteLength === 0) throw new Error("empty range");
        parts.push(bytes);
        received += bytes.byteLength;
        const percent = Math.floor((received / total) * 100);
        if (percent !== shownPercent && received < total) {
          shownPercent = percent;
          toast({ title: "Downloading...", description: `${percent}%`, durationMs: 0 });
        }
      } while (received < total);
      saveFile(parts, backupDownloadName(backup), "application/octet-stream");
      toast({ title: `Download complete (${formatMegabytes(received)} MB)`, variant: "success" });
    } catch {
      toast({ title: "Failed to download backup", variant: "destructive" });
    } finally {
      setDownloadingId(null);
    }
  }, []);

  return { download, downloadingId };
}
