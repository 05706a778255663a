import { isCisternError } from "@cistern/protocol";
import { type QueryKey, useQuery } from "@tanstack/react-query";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";

/** Query string from defined params (undefined and null are left out). */
export function toQueryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/**
 * A GET on the read API, parsed. The query key starts with `scope` (a refresh scope such as
 * "loans" or "mypool"), so transactions refresh what they change.
 */
export function useApiQuery<T>(
  scope: string,
  path: string,
  params: Record<string, string | number | undefined | null>,
  parse: (body: unknown) => T,
  options: { enabled?: boolean; refetchIntervalMs?: number } = {},
) {
  const { config } = useAppContext();
  const url = `${config.apiUrl}${path}${toQueryString(params)}`;
  const queryKey: QueryKey = [scope, path, params, config.apiUrl];
  return useQuery({
    queryKey,
    queryFn: async () => parse(await requestJson<unknown>(url)),
    enabled: options.enabled ?? true,
    refetchInterval: options.refetchIntervalMs,
    refetchIntervalInBackground: false,
    // HTTP answers (CisternError) are final; a network failure is tried once more.
    retry: (failures, error) => failures < 1 && !isCisternError(error),
  });
}
