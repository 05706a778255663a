/** The spec's link prefetch: a link's page code starts loading once the link is within 200 px of the screen. */
export const LINK_PREFETCH_MARGIN = "200px";

let prefetcher: (path: string) => void = () => undefined;

/** The app registers how to load a path's page code (the route table lives at the app level). */
export function setRoutePrefetcher(load: (path: string) => void): void {
  prefetcher = load;
}

/** Runs `task` once the page has loaded and the browser is idle, so prefetching never delays the first page. */
function whenIdle(task: () => void): void {
  const idle = () =>
    typeof requestIdleCallback === "function" ? requestIdleCallback(() => task()) : setTimeout(task, 200);
  if (document.readyState === "complete") idle();
  else window.addEventListener("load", idle, { once: true });
}

/** Starts loading the page code of `path` when the browser is idle (the bundler keeps one import per page). */
export function prefetchRoute(path: string): void {
  whenIdle(() => prefetcher(path));
}
