//! Server reflection answers in both generations of the protocol: `grpc.reflection.v1` (grpcurl,
//! current tools) and `grpc.reflection.v1alpha` (Python's grpcio-reflection, older tools).

use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;
use tonic_reflection::pb::{v1, v1alpha};

#[tokio::test]
async fn reflection_lists_the_services_in_v1_and_v1alpha() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let shutdown = CancellationToken::new();
    let served =
        hanniball_svc_kit::serve(listener, RoutesBuilder::default(), &[], shutdown.clone())
            .await
            .expect("serve");
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", served.addr))
        .expect("url")
        .connect()
        .await
        .expect("connect");

    let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("v1 answers")
        .into_inner();
    let answer = answers.message().await.expect("a v1 answer").expect("one");
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("v1: not a service list: {answer:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.iter().any(|n| n == "hanniball.arbiter.v1.Arbiter"),
        "{names:?}"
    );

    let mut client = v1alpha::server_reflection_client::ServerReflectionClient::new(channel);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::FileContainingSymbol(
                "hanniball.arbiter.v1.Arbiter".to_owned(),
            ),
        ),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("v1alpha answers")
        .into_inner();
    let answer = answers
        .message()
        .await
        .expect("a v1alpha answer")
        .expect("one");
    let Some(v1alpha::server_reflection_response::MessageResponse::FileDescriptorResponse(files)) =
        answer.message_response
    else {
        panic!("v1alpha: not a file descriptor: {answer:?}");
    };
    assert!(!files.file_descriptor_proto.is_empty());
    shutdown.cancel();
}
