import { useIsFetching, useIsMutating } from "@tanstack/react-query";
import { useRefreshing } from "../data/refresh.ts";

/** Thin bar at the top while navigating or loading data. */
export function ProgressBar({ navigating }: { navigating: boolean }) {
  const fetching = useIsFetching();
  const mutating = useIsMutating();
  const refreshing = useRefreshing();
  const active = navigating || fetching > 0 || mutating > 0 || refreshing;
  return (
    <div
      className={`progress-bar${active ? " is-active" : ""}`}
      role="progressbar"
      aria-hidden={!active}
      aria-label="Loading"
    />
  );
}
