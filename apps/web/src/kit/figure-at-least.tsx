/**
 * An expected figure and the least it may come to, as shown: "3.52 SOL at least 3.49 SOL". When both read
 * the same once rounded for display, the figure is shown once ("3.49 SOL"), never repeated.
 */
export function FigureAtLeast({
  expected,
  atLeast,
  about = false,
}: {
  /** The expected figure, formatted for display. */
  expected: string;
  /** The least it may come to, formatted the same way. */
  atLeast: string;
  /** Prefix "about" to the expected figure when it may differ from the least. */
  about?: boolean;
}) {
  if (expected === atLeast) return <>{expected}</>;
  return (
    <>
      {about ? "about " : ""}
      {expected} <small className="muted">at least {atLeast}</small>
    </>
  );
}
