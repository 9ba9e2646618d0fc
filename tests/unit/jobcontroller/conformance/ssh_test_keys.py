"""The user-provided keys of volcano ``ssh_test.go``'s ``with user provided ssh keys`` row,
as the Go source spells them: its ``\\n`` are a backslash and an ``n``, not line breaks."""

from __future__ import annotations

PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEAyeyZjWDx5Na9bw1f61M4s+QlLT/kyr"
    "B37AR2j5Sb/A9hvJak\\nLNQQpNC+KVfYNl4jePG+6lwHqye//pcC9+0SWsHWwgaahjMLnAthR2k8JAa"
    "kNA9x\\nV/wHz0YU99OKEetaOuxXpWZPXCHX0zuQO87YbdKzRbgxACirM3Phkwr7XLtQtWZk\\nyXG34"
    "CQXZQWgBIS1Fl+PlGOpVpOPnWoZPMpbAK74i/Tz4sP8Zhqc6dya1hrbUwY3\\nYfMZNYXpaAw7wWVjq8"
    "grfs0+Fl3SxHrzTXge2m+eZAZ6iPJ8cX4uYKxi0ZmxpM/a\\ngI6Mmjq0MU75Vxpq22LaUvHIpOfX5Ux"
    "hkrsxlwIDAQABAoIBAQDGOuIb6zpNn4rl\\nBMpPqamW4LimjX08hrWUHGWQWyIu96LJk1GlOKMGSm8F"
    "A1odNZm5WApG5QYaPrG7\\na+DcJ/7G3ljIrdbxPBd/n6RmiKcj7ukwuqBY8fFwyKo5CZEYOmagRfldR"
    "O1P02Gf\\n22+jZ1MNrbWVElf4gfRgVLj0s+lEhFkzhi+QGMmMpjEJnnG98xxVGEvWMw1rnKJm\\n3Gi"
    "771Gltbg3GuEPs3IeoBgba3EaHmSxJnBivAL4zsO8UUCAXB13cUiXx8qO7y1e\\nCSWSenRmK2ugbL6v"
    "0co12O0n0pxF9xlJ6fALdRWzpJsFlN3ttkY9N5GrQc/pVjOa\\nvqa172RRAoGBAOSAIMNLT6QjgYDk5"
    "Z7ZxjNnxH/lMso+cx6bxk9YMKRrw0fDQh8m\\ncBAihXhuntCPDGhrzQ+Anqx4jJVDFqac0xBck90a8L"
    "mmzD0q72eDTCYPouDWe6DL\\nJQAc/HDmIC13sADEXmGW3c0Qn4hjBnMd89ouYj7ZajU2sED2irPPc/H"
    "LAoGBAOI5\\nruL4Q0FarGrP3a9z9EDrVJsK2OfSTaJ7rhZ+uvB838svbHU+4mEYPhx4PCwvrYyi\\nF"
    "n4hyau003ZmLc1qTABjmwcO/PPiYyoRHJDUIIhiIyIL+id/G53uG2eTzqYtU6uS\\nnAIB2rKwwhU8ek"
    "+zbJBLu5uxuxlf4mdZITdkwtXlAoGBALH3RQ02A9JgQQYFwP2G\\nucLhx/6goX05RGoLg1na4w+8Sr0"
    "Cy+X9BvzaFkAlUBY5w700cOLpFyxXO48pUGP1\\n8sFkiVmFGQZPbfUaEpn5ff6K4R3ijyk97xR2fvrj"
    "kR44gOEoECZL3XZQwx/zmFti\\nccF1rNksdnb5oC8IliDTq4cfAoGANyy6asECJj5nLuXju5ccS3kZ+"
    "XZ70I6KQMbJ\\nftMJ5P2P146JdU8RB31SKL9qbZxzR4mA0uKKvUYtDQN+yErUnoOsm9wb9Z+RcAEc\\"
    "nZnZWOO02hGdHa7qkkbAxHuH91KnZbk8jnZm2LT7PFz7Y1fd80vSlnSOL7nRkU7B5\\nWXlJy8ECgYA4"
    "g0wc0Jq8c1Q0FulMkOQqYRDXaDo34987L+mZ70i/RtdkKjK/IKJ9\\n18UDCyEaDPD0BWBJGPejZkY8U"
    "D6FBG/5k7wNIbT7hHLRSRlw4iRmVX2hRVXrXzD8\\nvc86Qyg2iG0JqkMAvRdH40amPKp5bW4VcfcvQo"
    "4TSsI972u12rgwtg==\\n-----END RSA PRIVATE KEY-----\\n"
)
PUBLIC_KEY = (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDJ7JmNYPHk1r1vDV/rUziz5CUtP+TKsHfsBHaPlJv8"
    "D2G8lqQs1BCk0L4pV9g2XiN48b7qXAerJ7/+lwL37RJawdbCBpqGMwucC2FHaTwkBqQ0D3FX/AfPRhT3"
    "04oR61o67FelZk9cIdfTO5A7ztht0rNFuDEAKKszc+GTCvtcu1C1ZmTJcbfgJBdlBaAEhLUWX4+UY6lW"
    "k4+dahk8ylsArviL9PPiw/xmGpzp3JrWGttTBjdh8xk1heloDDvBZWOryCt+zT4WXdLEevNNeB7ab55k"
    "BnqI8nxxfi5grGLRmbGkz9qAjoyaOrQxTvlXGmrbYtpS8cik59flTGGSuzGX root@aiplatform"
)
