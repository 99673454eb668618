// What a page last said: a notice (read out politely) and an error (read out at once), each only when
// there is one, in the order every page shows them.
export function Said({ notice, error }: { notice?: string | null; error?: string | null }) {
  return (
    <>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
