// Descriptions from the document mark code with backticks; shown as <code>, always as text.
export function DocText({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) =>
        // Odd parts were between backticks.
        i % 2 ? <code key={i}>{part}</code> : part,
      )}
    </>
  );
}
