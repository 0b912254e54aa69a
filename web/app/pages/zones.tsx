export default function Page() {
  return <h1>zones</h1>;
}
