export default function Page() {
  return <h1>history</h1>;
}
