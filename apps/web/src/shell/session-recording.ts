import { SESSION_RECORDING_DELAY_MS } from "@cistern/protocol";

/**
 * Injects the session-recording script 5 s after the page has loaded, when one is configured.
 * Returns a cancel function.
 */
export function scheduleSessionRecording(
  scriptUrl: string | null,
  delayMs = SESSION_RECORDING_DELAY_MS,
): () => void {
  if (!scriptUrl) return () => undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = () => {
    timer = setTimeout(() => {
      const script = document.createElement("script");
      script.src = scriptUrl;
      script.async = true;
      script.dataset.sessionRecording = "";
      document.head.appendChild(script);
    }, delayMs);
  };
  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
  return () => {
    window.removeEventListener("load", start);
    clearTimeout(timer);
  };
}
