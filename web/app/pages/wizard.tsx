export default function Page() {
  return <h1>wizard</h1>;
}
