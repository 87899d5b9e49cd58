<?php
// The SysV readers-writer story over Semafor's HTTP API (docs/http.md), in plain PHP with its
// stream functions: a writer takes every slot of "rw/room" with a semop, readers take one each.
// Usage: php sysv.php BASE_URL   (prints one line per step; exits 1 on a wrong answer)

$base = $argv[1];

function call(string $method, string $path, ?array $body = null): array {
    global $base;
    $opts = ['http' => [
        'method' => $method,
        'header' => "Content-Type: application/json\r\n",
        'ignore_errors' => true, // a 4xx answer is read, not a warning
        'timeout' => 30,
    ]];
    if ($body !== null) {
        $opts['http']['content'] = json_encode($body);
    }
    $raw = file_get_contents($base . $path, false, stream_context_create($opts));
    preg_match('{HTTP/\S+ (\d+)}', $http_response_header[0], $m);
    return [(int) $m[1], json_decode($raw, true)];
}

function expect(bool $ok, string $what): void {
    echo ($ok ? "ok   " : "FAIL ") . $what . "\n";
    if (!$ok) {
        exit(1);
    }
}

$readers = 3;
[$s, $r] = call('PUT', '/v1/semaphores/rw%2Froom', ['initial' => $readers, 'capacity' => $readers]);
expect($s === 201, "create rw/room with $readers slots");

// two readers each take a slot (semop, consumed), without waiting
for ($i = 1; $i <= 2; $i++) {
    [$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -1]]]);
    expect($s === 200 && $r['done'] === true, "reader $i enters");
}

// the writer needs every slot: it cannot have them now (no_wait answers 409 WOULD_BLOCK)
[$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -$readers, 'no_wait' => true]]]);
expect($s === 409 && $r['code'] === 'WOULD_BLOCK', "the writer would block while readers read");

// it waits up to 200 ms and times out: an answer, not an error
[$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -$readers]], 'timeout_ms' => 200]);
expect($s === 200 && $r['done'] === false, "the writer times out while readers read");

// the readers leave (they give their slots back)
for ($i = 1; $i <= 2; $i++) {
    [$s, $r] = call('POST', '/v1/semaphores/rw%2Froom/increment', ['amount' => 1]);
    expect($s === 200, "reader $i leaves");
}

// now the writer takes the room whole
[$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -$readers]], 'timeout_ms' => 1000]);
expect($s === 200 && $r['done'] === true, "the writer enters alone");

// a reader must wait: none gets in while the writer writes
[$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -1]], 'timeout_ms' => 100]);
expect($s === 200 && $r['done'] === false, "a reader waits while the writer writes");

// the writer leaves; a reader enters
[$s, $r] = call('POST', '/v1/semaphores/rw%2Froom/increment', ['amount' => $readers]);
expect($s === 200 && $r['value'] === $readers, "the writer leaves");
[$s, $r] = call('POST', '/v1/semop', ['ops' => [['name' => 'rw/room', 'delta' => -1]], 'timeout_ms' => 1000]);
expect($s === 200 && $r['done'] === true, "a reader enters after the writer");

[$s, $r] = call('GET', '/v1/semaphores/rw%2Froom');
expect($s === 200 && $r['value'] === $readers - 1, "the room holds one reader");
echo "done\n";
